import type { McpContext, McpToolRegistration } from '../../src/index.js';
import { WITH_TASKS } from './task-requests.js';

/** Client capabilities for `confirm_job`: the tasks extension and form elicitation. */
export const WITH_TASKS_AND_FORMS = { ...WITH_TASKS, elicitation: {} };
export const CONFIRM = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };

/**
 * Two task tools that wait on the test, for one instance (or several sharing one `TaskJobs`): `long_job` runs
 * until `done()` releases it or its signal stops it (a task or a plain call), `confirm_job` asks under `go`
 * whether to go on (a task only). `started` and `stoppedBy` tell where the work ran and why it stopped.
 */
export class TaskJobs {
  started = 0;
  stoppedBy: unknown;
  private release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  done(): void {
    this.release();
  }

  tools(): McpToolRegistration[] {
    return [
      {
        name: 'long_job',
        description: 'Runs until the test releases it or it is stopped',
        inputSchema: { type: 'object' },
        taskSupport: 'optional',
        handler: async (_args, _answers, ctx: McpContext) => {
          this.started++;
          await new Promise<void>((resolve, reject) => {
            this.released.then(resolve);
            ctx.signal.addEventListener('abort', () => {
              this.stoppedBy = ctx.signal.reason;
              reject(ctx.signal.reason);
            });
          });
          return 'long job done';
        },
      },
      {
        name: 'confirm_job',
        description: 'Asks before it finishes',
        inputSchema: { type: 'object' },
        taskSupport: 'required',
        handler: async (_args, _answers, ctx: McpContext) => {
          const answer = await ctx.elicit('Go on?', CONFIRM, { key: 'go' });
          return `confirmed: ${String(answer.content?.confirm)}`;
        },
      },
    ];
  }
}
