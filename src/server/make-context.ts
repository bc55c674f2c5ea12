import type { RequestId } from '../protocol/jsonrpc.js';
import type { InputResponses, MetaObject } from '../protocol/mcp-types.js';
import { callerSourceOf, McpContext, type CallerSource } from './mcp-context.js';
import type { McpRequestContext } from './mcp-request-context.js';
import type { SchemaCompiler } from './schema/schema-compiler.js';
import type { TaskRun } from './task-run.js';

/** One round of a call as the kernel verified it: what was asked, the answers it accepts and the signed state. */
export interface VerifiedRound {
  readonly requestId: RequestId;
  readonly method: string;
  readonly meta: MetaObject;
  readonly inputResponses: InputResponses;
  /** The digests of the questions the signed state says were asked; absent without a state. */
  readonly asked?: Readonly<Record<string, string>>;
  readonly state: unknown;
  readonly round: number;
}

/**
 * Where a round runs: in its request (the transport's signal, streams, request and principal), as a round of a
 * task in this process (the request that started it still describes the call), or on a queue's worker, where
 * no request exists and the principal is the one the task store kept.
 */
export type RoundOrigin = RequestOrigin | TaskOrigin | QueueOrigin;

interface RequestOrigin {
  readonly request: McpRequestContext;
  readonly caller?: CallerSource;
  readonly mayStartTask?: boolean;
}

interface TaskOrigin {
  readonly task: TaskRun;
  readonly startedBy: McpContext;
}

/** `queuedFor`: the principal the task store kept for the call. */
interface QueueOrigin {
  readonly task: TaskRun;
  readonly queuedFor: unknown;
}

/**
 * The one place a handler's context is made, so a direct call, an in-process task round and a queued round
 * cannot disagree on what they carry, the transport they name above all.
 */
export function makeContext(round: VerifiedRound, origin: RoundOrigin, schemas: SchemaCompiler): McpContext {
  const request = 'request' in origin ? origin.request : undefined;
  const started = request === undefined && 'startedBy' in origin ? origin.startedBy : undefined;
  const task = request ? undefined : (origin as TaskOrigin | QueueOrigin).task;
  const httpRequest = request ? request.httpRequest : started?.httpRequest;
  return new McpContext(
    round,
    schemas,
    request ? (httpRequest === undefined ? 'stdio' : 'http') : started ? started.transport : 'queue',
    httpRequest,
    request ? request.principal : started ? started.principal : (origin as QueueOrigin).queuedFor,
    request,
    task,
    (origin as RequestOrigin).mayStartTask === true,
    request ? (origin as RequestOrigin).caller : started && callerSourceOf(started),
  );
}
