import type { JsonRpcNotification, JsonRpcRequest, RequestId } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, Implementation, InputResponses, LoggingLevel } from '../protocol/mcp-types.js';
import {
  LATEST_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
} from '../protocol/versions.js';
import type { McpContext } from '../server/mcp-context.js';
import { makeContext } from '../server/make-context.js';
import { SchemaCompiler } from '../server/schema/schema-compiler.js';

export interface ToolContextOptions {
  /** Answers of earlier input rounds, as the client would send them. */
  inputResponses?: InputResponses;
  /** Default: form elicitation, sampling and roots. */
  clientCapabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  /** Given by default, so `reportProgress` is recorded; `null` to test a client that asked for none. */
  progressToken?: string | number | null;
  /** Record `context.log` entries at or above this level. */
  logLevel?: LoggingLevel;
  principal?: unknown;
  httpRequest?: unknown;
  /** The verified state of an earlier round and that round's number. */
  state?: unknown;
  round?: number;
  method?: string;
  requestId?: RequestId;
}

export interface ToolContextHarness {
  /** The context to pass to a handler: `handler(args, context.inputResponses, context)`. */
  context: McpContext;
  /** Every notification the handler sent (progress, log), in order. */
  notifications: JsonRpcNotification[];
  /** Fires the context's abort signal, as a client that went away would. */
  abort(reason?: unknown): void;
}

/**
 * Builds the `McpContext` a handler receives, for unit tests without HTTP: notifications are recorded, input
 * helpers (`elicit`, `sample`, `listRoots`) read `inputResponses` and throw `InputRequired` when unanswered.
 */
export function createToolContext(options: ToolContextOptions = {}): ToolContextHarness {
  const notifications: JsonRpcNotification[] = [];
  const controller = new AbortController();
  const meta: Record<string, unknown> = {
    [META_PROTOCOL_VERSION]: LATEST_PROTOCOL_VERSION,
    [META_CLIENT_INFO]: options.clientInfo ?? { name: 'nestjs-mcp-testing', version: '1.0.0' },
    [META_CLIENT_CAPABILITIES]: options.clientCapabilities ?? { elicitation: { form: {} }, sampling: {}, roots: {} },
  };
  if (options.progressToken !== null) meta.progressToken = options.progressToken ?? 'progress-1';
  if (options.logLevel !== undefined) meta[META_LOG_LEVEL] = options.logLevel;
  const round = {
    requestId: options.requestId ?? 1,
    method: options.method ?? 'tools/call',
    meta,
    inputResponses: options.inputResponses ?? {},
    state: options.state,
    round: options.round ?? 0,
  };
  const request = {
    signal: controller.signal,
    // The context only sends notifications; requests to the client are the 2025-era leg's.
    notify: (message: JsonRpcNotification | JsonRpcRequest) => void notifications.push(message as JsonRpcNotification),
    httpRequest: options.httpRequest,
    principal: options.principal,
  };
  const context = makeContext(round, { request }, new SchemaCompiler());
  return { context, notifications, abort: (reason) => controller.abort(reason) };
}
