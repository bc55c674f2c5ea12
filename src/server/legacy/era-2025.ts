import type { ReplyOutcome } from '../../protocol/client-reply.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { errorResponse, isPlainObject, successResponse, type JsonRpcRequest, type JsonRpcResponse } from '../../protocol/jsonrpc.js';
import { LOG_LEVELS, type InputRequests, type ServerCapabilities } from '../../protocol/mcp-types.js';
import {
  LEGACY_PROTOCOL_VERSIONS,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
} from '../../protocol/versions.js';
import type { McpKernel, McpRequestContext } from '../mcp-kernel.js';
import { InProcessReplyRouter, type ReplyRouter } from '../reply-router.js';
import { ClientInputError, ClientRequests, type ClientStream } from './client-requests.js';

export interface Era2025Options {
  /** Routes replies to server→client requests back to the waiting call. In process by default. */
  replyRouter?: ReplyRouter;
  /** How long one round of server→client requests waits for the client's answers. Default 5 minutes. */
  clientReplyTimeoutMs?: number;
  /** Most calls waiting for client input at once on this instance. Default 100. */
  maxWaitingCalls?: number;
  /** Largest reply to a server→client request, in bytes of JSON. Default 1 MiB. */
  maxReplyBytes?: number;
}

// A handler that keeps asking (say, for an answer the client can never give) is stopped after this many rounds.
const MAX_ROUNDS = 8;
// The methods that exist only in 2026-07-28: without a claim they are unknown, as in any 2025 server.
const FAMILY_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
]);

/**
 * The 2025-era leg (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05), stateless: an adapter around the same
 * method handlers as 2026-07-28. `initialize` is answered from what the server has and remembers nothing; the
 * methods 2026-07-28 removed are answered as 2025 did; every other request runs the 2026 handler and its result
 * is returned in its 2025 shape. A handler that asks for input (`ctx.elicit`, `InputRequired`) has its requests
 * sent to the client as real JSON-RPC requests on the call's own stream; the answers come back as new POSTs
 * through `acceptReply`, and the handler runs again with them under the keys it asked under, as a 2026 client's
 * retry would. Transport-free: a driver hands in a request and a context whose `notify` writes to the stream.
 */
export class Era2025 {
  readonly requests: ClientRequests;
  private readonly router: ReplyRouter;
  private identity: { serverInfo: Record<string, unknown>; capabilities: ServerCapabilities; instructions?: string } | undefined;

  constructor(
    private readonly kernel: McpKernel,
    options: Era2025Options = {},
  ) {
    this.router = options.replyRouter ?? new InProcessReplyRouter();
    this.requests = new ClientRequests({
      router: this.router,
      timeoutMs: options.clientReplyTimeoutMs ?? 300_000,
      maxWaiting: options.maxWaitingCalls ?? 100,
      maxReplyBytes: options.maxReplyBytes ?? 1024 * 1024,
    });
  }

  /** Requests waiting for a client's reply on this instance. */
  get waiting(): number {
    return this.router.size;
  }

  /** Serves one 2025-era request; `version` is what its transport speaks (the header, or 2025-03-26). */
  async handle(request: JsonRpcRequest, context: McpRequestContext, version: string): Promise<JsonRpcResponse> {
    switch (request.method) {
      case 'initialize':
        return successResponse(request.id, await this.initialize(request, context));
      case 'ping':
        return successResponse(request.id, {});
      case 'logging/setLevel':
        // There is nowhere to keep a level: this leg sends every log, and a client filters what it shows.
        if (!(LOG_LEVELS as readonly unknown[]).includes(request.params?.level)) {
          return errorResponse(request.id, ErrorCode.InvalidParams, 'Invalid params: "level" must be a logging level');
        }
        return successResponse(request.id, {});
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        // Accepted, never delivered: a stateless server has no stream to send resources/updated on.
        if (!(await this.identify(context)).capabilities.resources) return errorResponse(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
        if (typeof request.params?.uri !== 'string') return errorResponse(request.id, ErrorCode.InvalidParams, 'Invalid params: "uri" must be a string');
        return successResponse(request.id, {});
      default:
        if (!FAMILY_METHODS.has(request.method)) return errorResponse(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
        return this.serve(request, context, version);
    }
  }

  /** Routes a client's posted response to the call that waits for it. */
  acceptReply(message: Record<string, unknown>, principal: unknown): Promise<ReplyOutcome> {
    return this.identify({}).then(({ serverInfo }) => this.requests.acceptReply(message, ClientRequests.owner(String(serverInfo.name), principal)));
  }

  /** Withdraws every request still waiting for a reply (shutdown). */
  close(): Promise<void> {
    return this.router.close();
  }

  private async initialize(request: JsonRpcRequest, context: McpRequestContext): Promise<Record<string, unknown>> {
    const requested = request.params?.protocolVersion;
    // Version negotiation (2025-11-25 lifecycle): the same version when supported, else the latest this leg has.
    const protocolVersion = typeof requested === 'string' && LEGACY_PROTOCOL_VERSIONS.includes(requested) ? requested : LEGACY_PROTOCOL_VERSIONS[0];
    const { serverInfo, capabilities, instructions } = await this.identify(context);
    const result: Record<string, unknown> = { protocolVersion, capabilities, serverInfo };
    if (instructions !== undefined) result.instructions = instructions;
    return result;
  }

  /**
   * Runs a method through the kernel, in rounds while its handler asks for input. The request is the client's
   * own, with the leg's defaults in `_meta` where the client set none: its transport version and, since no
   * level can be stored, every log.
   */
  private async serve(request: JsonRpcRequest, context: McpRequestContext, version: string): Promise<JsonRpcResponse> {
    const params = request.params ?? {};
    const meta: Record<string, unknown> = { ...(isPlainObject(params._meta) ? params._meta : {}) };
    meta[META_PROTOCOL_VERSION] = version;
    meta[META_LOG_LEVEL] ??= 'debug';
    let current: JsonRpcRequest = { ...request, params: { ...params, _meta: meta } };
    const owner = ClientRequests.owner(String((await this.identify(context)).serverInfo.name), context.principal);
    for (let round = 0; ; round++) {
      const response = await this.kernel.dispatch(current, context);
      if ('error' in response) return response;
      const result = response.result;
      if (result.resultType !== 'input_required') return successResponse(request.id, legacyShape(result));
      if (round >= MAX_ROUNDS) return this.inputFailed(request, `Error: the handler asked for input more than ${MAX_ROUNDS} times`);
      let answers;
      try {
        answers = await this.requests.ask(result.inputRequests as InputRequests, owner, context.notify as ClientStream | undefined, context.signal ?? NEVER);
      } catch (error) {
        if (error instanceof ClientInputError) return this.inputFailed(request, error.message);
        throw error;
      }
      current = { ...current, params: { ...current.params, inputResponses: answers, requestState: result.requestState } };
    }
  }

  /** A tool call that could not get its input ends as a tool error the model can read; other methods as -32603. */
  private inputFailed(request: JsonRpcRequest, message: string): JsonRpcResponse {
    if (request.method === 'tools/call') return successResponse(request.id, { content: [{ type: 'text', text: message }], isError: true });
    return errorResponse(request.id, ErrorCode.InternalError, message);
  }

  /** Who the server is and what it has, from its own discovery answer, in the 2025 shape. */
  private async identify(context: McpRequestContext): Promise<NonNullable<Era2025['identity']>> {
    const discover = await this.kernel.dispatch({ jsonrpc: '2.0', id: 0, method: 'server/discover' }, context);
    const result = 'result' in discover ? discover.result : {};
    const meta = isPlainObject(result._meta) ? result._meta : {};
    const capabilities = { ...(result.capabilities as ServerCapabilities) };
    // No stream outlives a request, so no list_changed or resources/updated can be delivered.
    if (capabilities.tools) capabilities.tools = {};
    if (capabilities.prompts) capabilities.prompts = {};
    if (capabilities.resources) capabilities.resources = { subscribe: true };
    this.identity = { serverInfo: meta[META_SERVER_INFO] as Record<string, unknown>, capabilities };
    if (typeof result.instructions === 'string') this.identity.instructions = result.instructions;
    return this.identity;
  }
}

const NEVER = new AbortController().signal;

/** A 2026-07-28 result as 2025 clients know it: no `resultType`, no cache hints, no server identity in `_meta`. */
function legacyShape(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, _meta, ...rest } = result;
  if (!isPlainObject(_meta)) return rest;
  const { [META_SERVER_INFO]: _server, ...meta } = _meta;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}
