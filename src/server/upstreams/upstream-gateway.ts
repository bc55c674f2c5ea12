import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import { META_CLIENT_CAPABILITIES, META_LOG_LEVEL } from '../../protocol/versions.js';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '../../protocol/mcp-types.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { DUPLICATE_UPSTREAM_PREFIX, UPSTREAM_CLASH } from '../errors/configuration-messages.js';
import { InputRequired } from '../input-required.js';
import { callerSourceOf, type McpContext } from '../mcp-context.js';
import type { McpLogger } from '../mcp-logger.js';
import type { Visible } from '../registry/visibility.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, UpstreamConnection, type ListKind } from './upstream-connection.js';
import { listingOf, type MountedItem, type UpstreamListing } from './upstream-listing.js';
import type { McpUpstreamCaller, McpUpstreamOptions } from './upstream-options.js';
import type { UpstreamRegistrar } from './upstream-registrar.js';
import { ParkedCalls } from './parked-calls.js';
import { contextSink, UpstreamRelay, type RelaySink, type RelayState } from './upstream-relay.js';
import { forwardedCapabilities, modernRounds } from './modern-rounds.js';
import { needsTask, relayUpstreamTask, type TaskWire } from './upstream-task.js';

const DEFAULT_LIST_TTL_MS = 300_000;

/**
 * The SDK client's failures that leave the connection as it was (a slow answer, an answer it could not use):
 * any other failure that is not the upstream's own error (closed, not connected, the send failed, the session
 * is gone) has the connection made again.
 */
const KEEPS_CONNECTION = new Set<unknown>([
  'REQUEST_TIMEOUT',
  'INVALID_RESULT',
  'UNSUPPORTED_RESULT_TYPE',
  'INPUT_REQUIRED_ROUNDS_EXCEEDED',
  'CAPABILITY_NOT_SUPPORTED',
]);

/** An upstream's JSON-RPC errors to a tool call that say the caller's request was at fault: passed through. */
const CALLERS_FAULT = new Set<unknown>([ErrorCode.InvalidParams, ErrorCode.MissingRequiredClientCapability]);

/** Runs before every mounted call of one upstream; throws the refusal (an `McpError`, a `ToolError`). */
export type UpstreamGate = (context: McpContext, kind: 'tool' | 'prompt' | 'resource') => Promise<void>;

/** One entry of `upstreams`, with what the transport-aware layer adds: who may call, and who sees. */
export interface UpstreamMount {
  options: McpUpstreamOptions;
  gate?: UpstreamGate;
  visible?: Visible;
}

interface Mounted {
  mount: UpstreamMount;
  connection: UpstreamConnection;
  /** What is registered for it, by kind and key (the mounted name, or the URI). */
  items: Map<string, { digest: string; remove: () => boolean; update: (item: MountedItem) => void }>;
  ttl?: NodeJS.Timeout;
}

/**
 * Mounts upstream MCP servers on a server: each one's tools and prompts as `<prefix>_<name>`, its resources
 * and templates under their own URIs, registered through the server's own registration API, so a mounted
 * call is a local call to the kernel (scopes, visibility, bounds, deadline, interceptors, `onCall`). Lists
 * are asked at start-up, again when the upstream says one changed, and when `listTtlMs` runs out.
 */
export class UpstreamGateway {
  private readonly mounted: Mounted[] = [];
  /** Who owns each mounted name or URI: a clash at start-up names both sides. */
  private readonly owners = new Map<string, string>();
  /** Mounted calls kept open while their callers answer the upstream's questions. */
  private readonly parked = new ParkedCalls();

  constructor(
    private readonly registrar: UpstreamRegistrar,
    private readonly mounts: readonly UpstreamMount[],
    private readonly defaultMaxResponseBytes: number,
    private readonly logger: McpLogger,
  ) {
    const bare = mounts.filter((m) => m.options.prefix === '');
    if (bare.length > 1) throw new McpConfigurationError(DUPLICATE_UPSTREAM_PREFIX(''));
    const prefixes = new Set<string>();
    for (const { options } of mounts) {
      if (prefixes.has(options.prefix)) throw new McpConfigurationError(DUPLICATE_UPSTREAM_PREFIX(options.prefix));
      prefixes.add(options.prefix);
    }
  }

  /**
   * Connects to every upstream and mounts what each offers. A clash fails start-up; an upstream that cannot
   * be reached is logged and mounted once it answers (connection retried in the background).
   */
  async start(): Promise<void> {
    for (const mount of this.mounts) {
      const { options } = mount;
      const mounted: Mounted = { mount, connection: undefined!, items: new Map() };
      mounted.connection = new UpstreamConnection(options, options.maxResponseBytes ?? this.defaultMaxResponseBytes, {
        listChanged: (kind) => void this.refresh(mounted, kind, false),
        warn: (message) => this.logger.warn(message),
      });
      this.mounted.push(mounted);
    }
    const started = await Promise.allSettled(this.mounted.map((m) => m.connection.start()));
    for (const [index, outcome] of started.entries()) {
      const mounted = this.mounted[index];
      const ttl = mounted.mount.options.listTtlMs ?? DEFAULT_LIST_TTL_MS;
      mounted.ttl = setInterval(() => void this.refresh(mounted, 'all', false), ttl);
      mounted.ttl.unref();
      if (outcome.status === 'rejected') {
        this.logger.warn(
          `upstream ${mounted.connection.label} is unreachable (${(outcome.reason as Error).message}); retrying in the background`,
        );
        mounted.connection.lost();
        continue;
      }
      await this.refresh(mounted, 'all', true);
    }
  }

  async close(): Promise<void> {
    this.parked.close();
    for (const mounted of this.mounted) clearInterval(mounted.ttl);
    await Promise.all(this.mounted.map((m) => m.connection.close()));
  }

  /** Asks the upstream for its lists and brings the registrations in line; at start-up a clash throws. */
  private async refresh(mounted: Mounted, kind: ListKind | 'all', startUp: boolean): Promise<void> {
    let listing: UpstreamListing;
    try {
      listing = await listingOf(await mounted.connection.connected(), kind, mounted.mount.options.prefix);
    } catch (error) {
      if (startUp) throw error;
      this.logger.warn(`upstream ${mounted.connection.label}: listing failed: ${(error as Error).message}`);
      return;
    }
    for (const [key, entry] of mounted.items) {
      if (listing.kinds.has(key.split(':')[0] as ListKind) && !listing.items.has(key)) {
        entry.remove();
        mounted.items.delete(key);
        this.owners.delete(key);
      }
    }
    for (const [key, item] of listing.items) {
      try {
        this.place(mounted, key, item);
      } catch (error) {
        if (startUp) throw error;
        this.logger.error(`upstream ${mounted.connection.label}: ${(error as Error).message}`, error);
      }
    }
  }

  private place(mounted: Mounted, key: string, item: MountedItem): void {
    const current = mounted.items.get(key);
    if (current) {
      if (current.digest !== item.digest) current.update(item);
      current.digest = item.digest;
      return;
    }
    const label = mounted.connection.label;
    const owner = this.owners.get(key);
    if (owner) throw new McpConfigurationError(UPSTREAM_CLASH(item.what, item.key, owner, `upstream ${label}`));
    const handle = this.register(mounted, item);
    mounted.items.set(key, { digest: item.digest, ...handle });
    this.owners.set(key, `upstream ${label}`);
  }

  private register(mounted: Mounted, item: MountedItem): { remove: () => boolean; update: (i: MountedItem) => void } {
    const { options, visible } = mounted.mount;
    const rule = { requiredScopes: options.scopes, visible };
    const label = `upstream ${mounted.connection.label}`;
    try {
      switch (item.kind) {
        case 'tools': {
          const handler = (args: unknown, _answers: unknown, ctx: McpContext) =>
            this.callTool(mounted, item.upstreamName, args, ctx);
          // A caller that declared the tasks extension gets a task here, whatever the upstream's era (the spec
          // keeps an upstream tool's task support off the wire): the upstream call runs in it, its questions wait
          // for tasks/update, and an upstream tool that runs only as a task runs as one there too.
          const handle = this.registrar.addTool({
            ...item.tool,
            ...rule,
            validateArguments: false,
            taskSupport: 'optional',
            handler,
          });
          return { remove: handle.remove, update: (next) => handle.update({ ...(next as typeof item).tool }) };
        }
        case 'prompts': {
          const handler = (args: Record<string, string>, ctx: McpContext) =>
            this.getPrompt(mounted, item.upstreamName, args, ctx);
          const handle = this.registrar.addPrompt({ ...item.prompt, ...rule, handler });
          return { remove: handle.remove, update: (next) => handle.update({ ...(next as typeof item).prompt }) };
        }
        case 'resources': {
          const handler = (uri: string, _v: unknown, ctx: McpContext) => this.readResource(mounted, uri, ctx);
          const handle = this.registrar.addResource({ ...item.resource, ...rule, handler });
          return { remove: handle.remove, update: (next) => handle.update({ ...(next as typeof item).resource }) };
        }
        case 'templates': {
          const handler = (uri: string, _v: unknown, ctx: McpContext) => this.readResource(mounted, uri, ctx);
          const handle = this.registrar.addResourceTemplate({ ...item.template, ...rule, handler });
          return { remove: handle.remove, update: (next) => handle.update({ ...(next as typeof item).template }) };
        }
      }
    } catch (error) {
      // The server refused the name or URI: a local primitive holds it.
      if (error instanceof McpConfigurationError)
        throw new McpConfigurationError(UPSTREAM_CLASH(item.what, item.key, `local ${item.what}`, label), {
          cause: error,
        });
      throw error;
    }
  }

  private async callTool(mounted: Mounted, name: string, args: unknown, ctx: McpContext): Promise<CallToolResult> {
    await mounted.mount.gate?.(ctx, 'tool');
    try {
      try {
        return (await this.relayed(mounted, ctx, 'tools/call', { name, arguments: args })) as CallToolResult;
      } catch (error) {
        // In the gateway's task, a 2026-07-28 upstream's tool that runs only as a task runs as one there too (a
        // caller without the extension gets the upstream's -32021).
        if (!(error instanceof UpstreamFailure && ctx.taskId !== undefined && needsTask(error))) throw error;
        const { connection } = mounted;
        const caller = callerOf(ctx);
        const wire: TaskWire = (method, params, capabilities) =>
          connection.post(caller, method, params, capabilities).catch((failure: Error) => {
            throw new UpstreamFailure(`upstream ${connection.label} failed: ${failure.message}`, undefined);
          });
        return await relayUpstreamTask(ctx, wire, { name, arguments: args }, ctx.clientCapabilities ?? {});
      }
    } catch (error) {
      // A round that asks the caller for input, or a gateway too busy to keep the call open, is the kernel's;
      // an upstream's refusal of the caller's request (a capability it lacks, bad params) is the caller's; any
      // other failure is the tool's, an error result the model can read.
      if (error instanceof InputRequired || error instanceof McpError) throw error;
      if (error instanceof UpstreamFailure && CALLERS_FAULT.has(error.code)) asProtocolError(error);
      return { isError: true, content: [{ type: 'text', text: `Error: ${(error as Error).message}` }] };
    }
  }

  private async getPrompt(mounted: Mounted, name: string, args: Record<string, string>, ctx: McpContext) {
    await mounted.mount.gate?.(ctx, 'prompt');
    const params = { name, arguments: args };
    return (await this.relayed(mounted, ctx, 'prompts/get', params).catch(asProtocolError)) as GetPromptResult;
  }

  private async readResource(mounted: Mounted, uri: string, ctx: McpContext) {
    await mounted.mount.gate?.(ctx, 'resource');
    // A request of its own, never the client's response cache: one caller's private resource is not another's.
    return (await this.relayed(mounted, ctx, 'resources/read', { uri }).catch(asProtocolError)) as ReadResourceResult;
  }

  /**
   * One round of a mounted call. To a 2026-07-28 upstream, statelessly (`modernRounds`). To a 2025-era one,
   * whose requests for input come during the call: the first round starts the upstream request, a retry
   * continues the parked one its signed state names, and when the upstream asks, the call is parked, its id
   * sealed into the round's state, and the round ends with the questions, as a local tool's does.
   */
  private async relayed(mounted: Mounted, ctx: McpContext, method: string, params: Params): Promise<unknown> {
    const { connection } = mounted;
    const id = (ctx.state as Partial<RelayState> | undefined)?.upstreamCall;
    if (typeof id !== 'string' && connection.era() === 'modern') {
      const sink: RelaySink = { ask: () => Promise.reject(new Error('not during a call')), ...contextSink(ctx) };
      const capabilities = forwardedCapabilities(ctx);
      return modernRounds(ctx, (round) =>
        this.upstream(mounted, ctx, sink, ctx.signal, method, {
          ...params,
          ...round,
          _meta: { ...logMeta(ctx), ...(capabilities ? { [META_CLIENT_CAPABILITIES]: capabilities } : {}) },
        }),
      );
    }
    let relay: UpstreamRelay<unknown>;
    if (typeof id === 'string') {
      const parked = this.parked.take(id);
      if (!parked)
        throw new UpstreamFailure(
          `upstream ${connection.label}: the call this answer was for is no longer waiting (it timed out, or another instance holds it); call again`,
          undefined,
        );
      relay = parked;
    } else {
      const request = { ...params, _meta: logMeta(ctx) };
      relay = new UpstreamRelay(ctx, (own) => this.upstream(mounted, ctx, own, own.abort.signal, method, request));
    }
    try {
      return await relay.round(ctx);
    } catch (error) {
      if (!(error instanceof InputRequired)) throw error;
      const timeout = mounted.mount.options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
      const caller = callerSourceOf(ctx)?.callerKey().caller;
      const state: RelayState = { upstreamCall: this.parked.park(relay, caller, timeout) };
      throw new InputRequired(error.requests, { state });
    }
  }

  /**
   * One request to the upstream, for the caller of `ctx`, within the entry's timeout, ended by `signal`. What
   * the upstream sends on the request's stream goes to `sink`. A failure is rethrown naming the upstream; one
   * that is not the upstream's answer (the connection broke, the session is gone) also has the connection made
   * again.
   */
  private async upstream(
    mounted: Mounted,
    ctx: McpContext,
    sink: RelaySink,
    signal: AbortSignal,
    method: string,
    params: Params,
  ): Promise<unknown> {
    const { connection } = mounted;
    const caller = callerOf(ctx);
    try {
      const client = await connection.connected();
      return await connection.as(caller, sink, () =>
        client.request(
          { method, params },
          {
            signal,
            timeout: mounted.mount.options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
            onprogress: (progress) => sink.progress(progress),
            allowInputRequired: true,
          },
        ),
      );
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const answered = typeof code === 'number' && !signal.aborted;
      if (!answered && !signal.aborted && !KEEPS_CONNECTION.has(code)) connection.lost();
      const message = (error as Error).message.startsWith(`upstream ${connection.label}`)
        ? (error as Error).message
        : `upstream ${connection.label} failed: ${(error as Error).message}`;
      throw new UpstreamFailure(message, answered ? (code as number) : undefined, (error as { data?: unknown }).data);
    }
  }
}

type Params = Record<string, unknown>;

/** Who a mounted call is made for, as the entry's `headers` see it. */
function callerOf(ctx: McpContext): McpUpstreamCaller {
  return { principal: ctx.principal, httpRequest: ctx.httpRequest, clientInfo: ctx.clientInfo };
}

/** Asks a 2026-07-28 upstream for the logs its caller asked for (a 2025-era one sends them unasked). */
function logMeta(ctx: McpContext): Record<string, unknown> {
  return ctx.logLevel === undefined ? {} : { [META_LOG_LEVEL]: ctx.logLevel };
}

class UpstreamFailure extends Error {
  constructor(
    message: string,
    readonly code: number | undefined,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A failure as a JSON-RPC error: the upstream's own code and data when it answered with an error, else an
 * internal error.
 */
function asProtocolError(error: unknown): never {
  if (!(error instanceof UpstreamFailure)) throw error;
  throw new McpError(
    error.code ?? ErrorCode.InternalError,
    error.message,
    error.code === undefined ? undefined : error.data,
  );
}
