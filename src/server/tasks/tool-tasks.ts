import { ErrorCode } from '../../protocol/error-codes.js';
import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { CallToolResult, InputRequests } from '../../protocol/mcp-types.js';
import {
  declaresTasksExtension,
  tasksExtensionRequired,
  type CreateTaskResult,
} from '../../protocol/extensions/tasks.js';
import { TaskStopped } from './active-task.js';
import type { TaskRun } from '../task-run.js';
import { InputRequired } from '../input-required.js';
import type { Caller } from '../access/caller-identity.js';
import type { McpContext } from '../mcp-context.js';
import { makeContext } from '../make-context.js';
import type { SchemaCompiler } from '../schema/schema-compiler.js';
import type { TaskRunner } from './task-runner.js';
import { failure, type TaskOutcome } from './task-records.js';
import type { QueuedTask, TaskCall } from './task-queue.js';
import type { ToolEntry } from '../registry/tool-registry.js';
import { isThenable } from '../util/when-ready.js';

/** How one `tools/call` runs: in its request, as a task from the first line, or in the request until `ctx.startTask()`. */
export type ToolCallMode = 'request' | 'task' | 'deferred';

/** How the tools family turns what a handler did into a `CallToolResult`, the same in a task as in a request. */
export interface ToolSettlement {
  /** What the handler returned (checked against the tool's outputSchema). */
  result(value: unknown): CallToolResult | Promise<CallToolResult>;
  /** An error the handler threw that is not a protocol error: a tool error result the client may read. */
  failure(error: unknown): CallToolResult;
}

/**
 * Tool calls as tasks (SEP-2663): which calls become one, and the handler's run inside it. The handler is the
 * same method with a context whose input helpers wait for `tasks/update`; one that throws `InputRequired`
 * itself (the multi-round style) is run again once every request it named is answered, as a retry would be.
 */
export class ToolTasks {
  constructor(
    private readonly runner: TaskRunner,
    private readonly schemas: SchemaCompiler,
  ) {}

  /** A task only for a client that declared the extension on this request; `required` refuses the others (-32021). */
  mode(entry: ToolEntry, request: JsonRpcRequest): ToolCallMode {
    if (entry.taskSupport === undefined) return 'request';
    if (!declaresTasksExtension(request)) {
      if (entry.taskSupport === 'required') throw tasksExtensionRequired();
      return 'request';
    }
    return entry.deferTask ? 'deferred' : 'task';
  }

  /**
   * Creates the task (answering once the store has it) and runs the handler in it, with what `base` gathered;
   * a tool with optional task support may be answered with its result instead (`tasks.immediateResultMs`).
   */
  start(
    entry: ToolEntry,
    args: Record<string, unknown>,
    base: McpContext,
    caller: Caller,
    settle: ToolSettlement,
    sent: Record<string, unknown>,
  ): CallToolResult | Promise<CreateTaskResult | CallToolResult> {
    if (this.runner.queued) {
      const { requestId, meta, principal, state, inputResponses: answers } = base;
      const call = { tool: entry.definition.name, arguments: sent, meta, requestId, principal, state, answers };
      return this.runner.enqueue(caller, call);
    }
    const window = this.runner.immediateResultMs;
    // A deferTask tool gets here from its `ctx.startTask()`: it asked for a task, and gets one.
    if (entry.taskSupport === 'optional' && !entry.deferTask && window !== undefined)
      return this.answerOrStart(entry, args, base, caller, settle, window);
    return this.runner.start(caller, base.inputResponses, (run) => this.run(entry, args, base, run, settle));
  }

  /**
   * One round of a queued task, on the worker that took it: the tool's handler run as in a task, from the call
   * the store keeps (its arguments checked again), with every answer so far; `find` names the tool's entry.
   */
  resume(
    job: QueuedTask,
    restarts: number,
    find: (call: TaskCall) => { entry: ToolEntry; settle: ToolSettlement } | undefined,
  ): Promise<void> {
    return this.runner.runQueued(job, restarts, (call) => {
      const found = find(call);
      if (!found) return { retry: 0, work: async () => failure(`Tool "${call.tool}" is not registered on the worker`) };
      const { entry, settle } = found;
      const work = async (run: TaskRun): Promise<TaskOutcome> => {
        const checked = await entry.input(call.arguments);
        if (checked.error !== undefined)
          return completed({ isError: true, content: [{ type: 'text', text: checked.error }] });
        const { requestId, meta, answers: inputResponses, state } = call;
        const round = { requestId, method: 'tools/call', meta, inputResponses, state, round: 0 };
        const base = makeContext(round, { task: run, queuedFor: call.principal }, this.schemas);
        return this.run(entry, checked.value as Record<string, unknown>, base, run, settle);
      };
      return { retry: entry.retry ?? 0, work };
    });
  }

  /**
   * The handler runs at once, in a task not stored yet. Settled within the window without asking for input, its
   * outcome answers the call as a plain one would and nothing is kept. At the window's end, or at its first ask,
   * the task is stored (within the limits) and the handler goes on in it, as if it had been a task from the start.
   * The window is an event-loop turn (`setImmediate`) at 0: what is ready without waiting on I/O or a timer.
   * A handler that returns its value synchronously is answered synchronously, as in a plain call.
   */
  private answerOrStart(
    entry: ToolEntry,
    args: Record<string, unknown>,
    base: McpContext,
    caller: Caller,
    settle: ToolSettlement,
    window: number,
  ): CallToolResult | Promise<CreateTaskResult | CallToolResult> {
    // Set once the handler did not answer synchronously; an ask made by one that did is dropped with its task.
    let promote: (() => void) | undefined;
    const task = this.runner.prepare(base.inputResponses, () => promote?.());
    const context = this.roundContext(base, task, base.state);
    let value: unknown;
    try {
      value = entry.handler(args, context.inputResponses, context);
    } catch (error) {
      value = Promise.reject(error);
    }
    if (!isThenable(value) && !(value instanceof InputRequired)) {
      const result = settle.result(value);
      if (!isThenable(result)) {
        task.release(false);
        return result;
      }
    }
    return new Promise((resolve, reject) => {
      let decided = false;
      const decide = () => {
        const first = !decided;
        decided = true;
        if (window === 0) clearImmediate(timer as NodeJS.Immediate);
        else clearTimeout(timer as NodeJS.Timeout);
        return first;
      };
      promote = () => {
        if (!decide()) return;
        // The caller gave up on the call meanwhile: no one would learn the task's id.
        if (base.signal.aborted) {
          task.release(false);
          task.stop(new TaskStopped('The call was cancelled'));
          reject(base.signal.reason);
          return;
        }
        this.runner.adopt(caller, task, () => running).then(resolve, reject);
      };
      const running = this.run(entry, args, base, task, settle, { context, value });
      const timer = window === 0 ? setImmediate(promote) : setTimeout(promote, window);
      // A widened window keeps the caller's request open a while: the caller giving up in it (cancel, deadline)
      // stops the handler then, as in a plain call, not at the window's end. An event-loop turn needs no listener.
      if (window > 0) base.signal.addEventListener('abort', promote, { once: true });
      running.then(
        (outcome) => {
          if (!decide()) return;
          task.release(false);
          if ('result' in outcome) resolve(outcome.result);
          else reject(new McpError(outcome.error.code, outcome.error.message, outcome.error.data));
        },
        (error: unknown) => {
          if (!decide()) return;
          task.release(false);
          reject(error);
        },
      );
    });
  }

  /** The context of one round of the handler in the task: every answer so far, and the state the last round left. */
  private roundContext(base: McpContext, run: TaskRun, state: unknown): McpContext {
    const { requestId, method, meta, round } = base;
    const verified = { requestId, method, meta, inputResponses: { ...run.answers }, state, round };
    return makeContext(verified, { task: run, startedBy: base }, this.schemas);
  }

  private async run(
    entry: ToolEntry,
    args: Record<string, unknown>,
    base: McpContext,
    run: TaskRun,
    settle: ToolSettlement,
    /** The first round, when the handler was called already (the shortcut's window): its context and what it returned. */
    started?: { context: McpContext; value: unknown },
  ): Promise<TaskOutcome> {
    let state = base.state;
    for (;;) {
      const context = started?.context ?? this.roundContext(base, run, state);
      const first = started;
      // Only the first round was begun already: a round after an InputRequired, thrown or returned, runs anew.
      started = undefined;
      let asked: InputRequired;
      try {
        const value = await (first ? first.value : entry.handler(args, context.inputResponses, context));
        if (!(value instanceof InputRequired)) return completed(await settle.result(value));
        asked = value;
      } catch (error) {
        if (error instanceof TaskStopped) throw error;
        if (error instanceof McpError) return protocolError(error);
        if (!(error instanceof InputRequired)) return completed(settle.failure(error));
        asked = error;
      }
      try {
        const again = await answer(asked.requests, run, context);
        if (again) return again;
      } catch (error) {
        // A request the client cannot answer (-32021) ends the task as failed, like any protocol error.
        if (error instanceof McpError) return protocolError(error);
        throw error;
      }
      state = asked.options.state !== undefined ? asked.options.state : context.state;
    }
  }
}

function completed(result: CallToolResult): TaskOutcome {
  return { result };
}

function protocolError(error: McpError): TaskOutcome {
  return {
    error:
      error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data },
  };
}

/**
 * Waits, through the task, for every request the handler named (the context checks what the client declared).
 * Asking only for keys already answered would run the handler again and again: that ends the task instead.
 */
async function answer(requests: InputRequests, run: TaskRun, context: McpContext): Promise<TaskOutcome | undefined> {
  const keys = Object.keys(requests);
  if (keys.every((key) => Object.hasOwn(run.answers, key))) {
    return {
      error: {
        code: ErrorCode.InternalError,
        message: 'Error: the handler asked again only for input it was already given',
      },
    };
  }
  await context.requestInputs(requests);
  return undefined;
}
