import type { RequestId } from '../protocol/jsonrpc.js';
import type {
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitResult,
  Implementation,
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
  JsonSchema,
  ListRootsResult,
  LoggingLevel,
  MetaObject,
} from '../protocol/mcp-types.js';
import { LOG_LEVELS } from '../protocol/mcp-types.js';
import { UI_MIME_TYPE, uiCapabilityOf } from '../protocol/extensions/apps.js';
import { StartTask, type TaskRun } from './task-run.js';
import { McpError } from '../protocol/mcp-error.js';
import {
  answers,
  capabilityNeededFor,
  clientDeclares,
  clientSupports,
  InputRequired,
  questionDigest,
  type InputCapability,
} from './input-required.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import type { SchemaCompiler } from './schema/schema-compiler.js';
import type { McpRequestContext, McpTransportKind } from './mcp-request-context.js';
import type { VerifiedRound } from './make-context.js';

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface SampleOptions extends Omit<CreateMessageRequest['params'], 'messages' | 'maxTokens'> {
  maxTokens?: number;
  key?: string;
}

/**
 * Who a call speaks for, as the kernel binds state to it: the caller identity (undefined when nobody is
 * identified) and what the app's `requestState.bind` hook reads from the request (undefined without one).
 */
export interface CallerSource {
  callerKey(): { caller: string | undefined; bound: unknown };
}

/** Who the call behind `context` speaks for; undefined for a context the kernel did not make for a call. */
export function callerSourceOf(context: McpContext): CallerSource | undefined {
  return context['callerSource'];
}

/**
 * The per-request context of a tool, prompt or resource handler: who is asking (protocol version, client
 * capabilities and info), how to talk back within this request (progress, log), how to stop (the abort
 * signal), and how to ask the client for input across rounds (`elicit`, `sample`, `listRoots`).
 *
 * The input helpers make a multi-round handler read top to bottom: each returns the client's answer when the
 * retry carries it, and otherwise ends the call with an `input_required` result. A handler re-runs from the
 * start on every round, so helpers are keyed by call order unless given an explicit `key`, and code before
 * the last helper runs once per round: put side effects after it.
 *
 * Inside a task (a tool registered with `taskSupport`, SEP-2663) the same helpers wait instead: the task
 * shows `input_required` with the request until `tasks/update` answers it, and the handler runs once.
 */
export class McpContext {
  // Declared, and assigned in the constructor, rather than class fields: a field is defined before the
  // constructor runs (so one it assigns is written twice), and a definition costs more than an assignment.
  declare readonly requestId: RequestId;
  declare readonly method: string;
  declare readonly meta: MetaObject;
  /**
   * The answers available to this round: those the client sent that answer what the last round asked (each
   * shaped like the result asked for), plus the answers settled in earlier rounds, which come from the
   * signed request state and cannot be changed by the client.
   */
  declare readonly inputResponses: InputResponses;
  /** How the call reached the handler: `'http'`, `'stdio'` (or in-process), or `'queue'` (a queued task's worker). */
  declare readonly transport: McpTransportKind;
  /** The transport's request object (the Express or Fastify request over HTTP), if any. */
  declare readonly httpRequest: unknown;
  /** The authenticated principal, when the transport established one. */
  declare readonly principal: unknown;
  /** How many input rounds this call has been through (0 on the first call). */
  declare readonly round: number;
  /** Any JSON value to carry to the next round; arrives verified on the retry. */
  declare state: unknown;
  /** The questions the verified request state says this server asked, by key (their digests); none without a state. */
  declare readonly asked: Readonly<Record<string, string>> | undefined;

  declare private signalSource: AbortSignal | undefined;
  /** The request a call runs in: its signal (made on first use) and stream, kept rather than copied. */
  declare private readonly stream: McpRequestContext | undefined;
  declare private readonly schemas: SchemaCompiler;
  // Set by the helpers that use them: most calls use none.
  declare private lastProgress: number | undefined;
  declare private helperCalls: number | undefined;
  /** The inputs this round asks for, shared by the helpers that asked (one `input_required` names them all). */
  declare private pending: InputRequests | undefined;
  /** The task the call runs in: input waits for `tasks/update`, progress becomes the task's status message. */
  declare private readonly task: TaskRun | undefined;
  /** The call runs in its request but may become a task: `startTask()` ends the request with one. */
  declare private readonly mayStartTask: boolean;
  /** Who the call speaks for, asked only by what counts per caller (a rate limiter). */
  declare private readonly callerSource: CallerSource | undefined;

  // Positional, not an options object: each member of an object made only to be copied here costs every call.
  constructor(
    round: VerifiedRound,
    schemas: SchemaCompiler,
    transport: McpTransportKind,
    httpRequest: unknown,
    principal: unknown,
    stream: McpRequestContext | undefined,
    task: TaskRun | undefined,
    mayStartTask: boolean,
    caller: CallerSource | undefined,
  ) {
    this.requestId = round.requestId;
    this.method = round.method;
    this.meta = round.meta;
    this.inputResponses = round.inputResponses;
    this.asked = round.asked;
    this.state = round.state;
    this.round = round.round;
    this.schemas = schemas;
    this.transport = transport;
    this.httpRequest = httpRequest;
    this.principal = principal;
    this.stream = stream;
    this.task = task;
    this.mayStartTask = mayStartTask;
    this.callerSource = caller;
  }

  // What the request's envelope says, read when asked: most handlers never look.
  get protocolVersion(): string | undefined {
    return this.meta['io.modelcontextprotocol/protocolVersion'] as string | undefined;
  }

  /**
   * What the client declared it can do, as its request's envelope says (`{}`: nothing). Undefined when the
   * request says nothing: a 2025-era client declared them only in `initialize`, which a stateless server does
   * not keep, so they are unknown rather than none.
   */
  get clientCapabilities(): ClientCapabilities | undefined {
    const declared = this.meta['io.modelcontextprotocol/clientCapabilities'];
    return isPlainObject(declared) ? (declared as ClientCapabilities) : undefined;
  }

  get clientInfo(): Implementation | undefined {
    return this.meta['io.modelcontextprotocol/clientInfo'] as Implementation | undefined;
  }

  get progressToken(): string | number | undefined {
    const token = this.meta.progressToken;
    return typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }

  get logLevel(): LoggingLevel | undefined {
    return this.meta['io.modelcontextprotocol/logLevel'] as LoggingLevel | undefined;
  }

  /** The id of the task this call runs in (SEP-2663), or undefined for a call answered in its own request. */
  get taskId(): string | undefined {
    return this.task?.taskId;
  }

  /**
   * Continues the call as a task, for tools registered with `deferTask`, whose handlers run in the request
   * first (where input rounds work as for any tool) and decide when to go on in the background: the request
   * ends with the task, and the handler runs again inside it with every answer gathered so far, so the code
   * before this line must be safe to repeat, as before any input helper. Inside the task, or when the call
   * cannot become one (the client did not declare the tasks extension), it resolves at once.
   */
  startTask(): Promise<void> {
    if (this.mayStartTask) return handled(Promise.reject(new StartTask()));
    return Promise.resolve();
  }

  /**
   * Aborts when the client goes away or the transport gives up on this request; inside a task, when the task
   * is cancelled, expires or the server closes.
   */
  get signal(): AbortSignal {
    // A task's signal is read on first use too: a call answered in its window never makes the task's controller.
    return (this.signalSource ??= this.task ? this.task.signal : (this.stream?.signal ?? NEVER_ABORTED));
  }

  /**
   * Ends this request's SSE stream now while the handler goes on, for a 2025-era client in a session
   * (`legacy.mode: 'stateful'`): the client reconnects after the stream's `retry` with `Last-Event-ID`, and gets
   * everything sent since, the result included (SSE polling). False, and nothing happens, on any other request.
   */
  closeStream(): boolean {
    return this.stream?.closeStream?.() ?? false;
  }

  /**
   * Starts this request's response as an SSE stream now, before the handler has anything to send, so a client
   * (or a proxy's idle timeout) sees a long call under way from its start, and closing the stream cancels it
   * (`signal` fires). The stream opens with an empty event, which SSE clients do not deliver as a message. False,
   * and nothing happens, when there is no stream to open: a client that does not accept SSE, stdio, a task.
   */
  openStream(): boolean {
    if (this.task || this.signal.aborted) return false;
    return this.stream?.openStream?.() ?? false;
  }

  /**
   * Reports progress on this request's stream. Sent only when the client asked for it with a progress token;
   * a value that does not increase is dropped, since the spec requires strictly increasing progress, and so is
   * one above its `total`, which a client would show as more than done. Inside a task, which carries no progress
   * notifications, it sets the task's `statusMessage` instead.
   */
  reportProgress(update: ProgressUpdate | number): void {
    const { progress, total, message } = typeof update === 'number' ? { progress: update } : update;
    if (total !== undefined && progress > total) return;
    if (this.task) {
      if (!(progress > (this.lastProgress ?? -Infinity))) return;
      this.lastProgress = progress;
      this.task.status(message ?? (total === undefined ? `${progress}` : `${progress}/${total}`));
      return;
    }
    const notify = this.stream?.notify;
    const progressToken = this.progressToken;
    if (progressToken === undefined || !notify || this.signal.aborted) return;
    if (!(progress > (this.lastProgress ?? -Infinity))) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    notify({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  /**
   * Sends a `notifications/message` log entry on this request's stream, only when the request asked for logs
   * with `_meta["io.modelcontextprotocol/logLevel"]` and only at or above that level. A task has no stream for
   * them (the tasks extension forbids log notifications), so inside one nothing is sent.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const notify = this.stream?.notify;
    const logLevel = this.logLevel;
    if (logLevel === undefined || !notify || this.signal.aborted) return;
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(logLevel)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    notify({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  /**
   * Whether the client may be asked for an input: whether it declared the capability, by name (`'elicitation'`,
   * `'elicitation.url'`, `'sampling'`, `'sampling.tools'`, `'roots'`) or for a given input request. A handler
   * that can do without an input checks this first and takes its fallback; one that cannot simply asks, and
   * the call ends with -32021 naming the missing capability. When the capabilities are unknown (a 2025-era
   * client, `clientCapabilities` undefined) it is true: the request is sent, and a client that cannot answer
   * it says so, which ends the call with an error naming the request.
   */
  supports(capability: InputCapability | InputRequest): boolean {
    const declared = this.clientCapabilities;
    if (declared === undefined) return true;
    return typeof capability === 'string' ? clientDeclares(declared, capability) : clientSupports(declared, capability);
  }

  /**
   * Whether this request's client renders MCP Apps UIs of `mimeType` (default `text/html;profile=mcp-app`): it
   * declared the `io.modelcontextprotocol/ui` extension listing it. At 2026-07-28 every request says so for
   * itself; a 2025-era client declared it only in `initialize`, which a stateless server does not keep, so there
   * this is false (and `clientCapabilities` undefined). A UI tool's result carries text for clients without one
   * either way: this is for trimming what only a UI shows, not for deciding whether to answer.
   */
  supportsUi(mimeType: string = UI_MIME_TYPE): boolean {
    const mimeTypes = uiCapabilityOf(this.clientCapabilities)?.mimeTypes;
    return Array.isArray(mimeTypes) && mimeTypes.includes(mimeType);
  }

  /**
   * Asks the user for structured input (form mode). Resolves with the client's `ElicitResult` once the retry
   * carries one whose accepted content satisfies `requestedSchema`; a decline or cancel is returned as is.
   */
  elicit(message: string, requestedSchema: JsonSchema, options: { key?: string } = {}): Promise<ElicitResult> {
    const request: InputRequest = { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } };
    return this.ask(options.key ?? this.nextKey('elicit'), request) as Promise<ElicitResult>;
  }

  /** Sends the user to a URL (URL-mode elicitation); the answer only says whether they went. */
  elicitUrl(message: string, url: string, options: { key?: string } = {}): Promise<ElicitResult> {
    const request: InputRequest = { method: 'elicitation/create', params: { mode: 'url', message, url } };
    return this.ask(options.key ?? this.nextKey('elicit'), request) as Promise<ElicitResult>;
  }

  /** Asks the client's model for a completion (sampling). */
  sample(
    prompt: string | CreateMessageRequest['params']['messages'],
    options: SampleOptions = {},
  ): Promise<CreateMessageResult> {
    const { key, maxTokens, ...rest } = options;
    const messages =
      typeof prompt === 'string' ? [{ role: 'user' as const, content: { type: 'text', text: prompt } }] : prompt;
    const request: CreateMessageRequest = {
      method: 'sampling/createMessage',
      params: { messages, maxTokens: maxTokens ?? 1000, ...rest },
    };
    return this.ask(key ?? this.nextKey('sample'), request) as Promise<CreateMessageResult>;
  }

  /** Asks the client for its filesystem roots. */
  listRoots(options: { key?: string } = {}): Promise<ListRootsResult['roots']> {
    const key = options.key ?? this.nextKey('roots');
    return handled(
      this.ask(key, { method: 'roots/list', params: {} }).then((result) => (result as ListRootsResult).roots),
    );
  }

  /**
   * Asks for several inputs in one round and returns every answer once all are there, each checked like the
   * single helpers check theirs. Helpers awaited together (`Promise.all([ctx.elicit(…), ctx.sample(…)])`) are
   * also asked in one round; this is the form for requests built by hand.
   */
  async requestInputs(requests: InputRequests): Promise<InputResponses> {
    const answered: InputResponses = {};
    for (const [key, request] of Object.entries(requests)) {
      const answer = this.answerFor(key, request);
      if (answers(request, answer, this.schemas)) answered[key] = answer;
      else (this.pending ??= {})[key] = request;
    }
    const task = this.task;
    if (task) {
      // In a task the asks wait for tasks/update, all outstanding at once.
      const pending = this.pending ?? {};
      const asked = Object.entries(pending);
      for (const [key] of asked) delete pending[key];
      const answers = await Promise.all(asked.map(([key, request]) => this.askInTask(task, key, request)));
      asked.forEach(([key], i) => (answered[key] = answers[i]));
      return answered;
    }
    if (this.pending && Object.keys(this.pending).length > 0)
      throw new InputRequired(this.pending, { state: this.state });
    return answered;
  }

  /**
   * Resolves with the answer when the retry carries a valid one. Otherwise the request joins this round's
   * pending set and the call ends: every helper rejects with the same live set, so helpers started together
   * before the first rejection is seen are all asked in the one `input_required` result.
   */
  private ask(key: string, request: InputRequest): Promise<unknown> {
    const answer = this.answerFor(key, request);
    if (answers(request, answer, this.schemas)) return Promise.resolve(answer);
    if (this.task) return this.askInTask(this.task, key, request);
    const pending = (this.pending ??= {});
    pending[key] = request;
    return handled(Promise.reject(new InputRequired(pending, { state: this.state })));
  }

  /** A task asks through `tasks/get`, but only for what the creating request declared it can answer. */
  private askInTask(task: TaskRun, key: string, request: InputRequest): Promise<InputResponse> {
    if (this.supports(request)) return task.ask(key, request);
    return handled(Promise.reject(McpError.missingCapabilities(capabilityNeededFor(request))));
  }

  /**
   * The answer to this question. Under a request state, only if the state was minted for this very question;
   * without one (SEP-2322 lets a client answer with `inputResponses` alone, and the conformance referee's
   * elicitation scenarios do) any answer of the right shape. A task's answers come through `tasks/update`,
   * which takes only keys the task asked.
   */
  private answerFor(key: string, request: InputRequest): unknown {
    if (!Object.hasOwn(this.inputResponses, key)) return undefined;
    if (!this.task && this.asked !== undefined && this.asked[key] !== questionDigest(request)) return undefined;
    return this.inputResponses[key];
  }

  private nextKey(kind: string): string {
    const index = this.helperCalls ?? 0;
    this.helperCalls = index + 1;
    return `${kind}_${index}`;
  }
}

// The signal of a request whose transport cannot be cancelled: one shared instance, never aborted.
const NEVER_ABORTED = new AbortController().signal;

/**
 * Marks a helper's promise as handled: a handler that starts two helpers and awaits one has already ended
 * its round when the other rejects, and that rejection must not surface as an unhandled one.
 */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
