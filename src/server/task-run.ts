import type { InputRequest, InputResponse, InputResponses } from '../protocol/mcp-types.js';

/** What the work of a task gets: its id, its stop signal, the answers so far, and ways to ask and to report. */
export interface TaskRun {
  readonly taskId: string;
  /** Fires when the task is cancelled, expires, or the server closes. */
  readonly signal: AbortSignal;
  /** Every answer the task has: those gathered before it started, and each one `ask` has resolved with. */
  readonly answers: InputResponses;
  /**
   * Resolves with the client's answer to `request`: the task goes `input_required` with the request under
   * `key` until `tasks/update` answers it (a key answered before resolves at once; keys are never reused).
   * Asks made in the same tick show up together. Answers gathered before the task are the caller's to check.
   */
  ask(key: string, request: InputRequest): Promise<InputResponse>;
  /** Sets the task's `statusMessage` (where progress goes: tasks carry no progress notifications). */
  status(message: string): void;
}

/**
 * Thrown by `ctx.startTask()` in a call that runs in its request first (a tool registered with `deferTask`):
 * the kernel creates the task, with the answers gathered so far, and runs the handler again inside it.
 */
export class StartTask extends Error {
  constructor() {
    super('The call continues as a task');
    this.name = 'StartTask';
  }
}
