import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Args, Content, ErrorCode, McpContext, McpCtx, McpError, Tool, ToolError } from '../../src/index.js';
import type { ContentBlock } from '../../src/index.js';
import { DELETE_CONFIRM_FORM, NAME_FORM } from './fixture-data.js';

const SLOW_COMPUTE_INPUT = {
  type: 'object',
  properties: {
    seconds: { type: 'integer', minimum: 0, maximum: 3600, description: 'How many seconds to compute' },
    label: { type: 'string', description: 'A label for the computation' },
  },
};

/**
 * The tools of the tasks-* scenarios (SEP-2663). Each is an ordinary method: `taskSupport` on `@Tool` is all it
 * takes to run as a task for a client that declared the extension. Inside a task `ctx.signal` fires on
 * `tasks/cancel`, `ctx.reportProgress` sets the status message, and `ctx.elicit` waits for `tasks/update`.
 */
@Injectable()
export class TaskTools {
  /** No `taskSupport`: always answered in its request, whatever the client declared. */
  @Tool({
    name: 'greet',
    description: 'Greets someone (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
  })
  greet(@Args('name') name: string | undefined): ContentBlock {
    return Content.text(`Hello, ${name ?? 'world'}!`);
  }

  /** A task for a declaring client, a plain call for any other; stops within a second of a cancel. */
  @Tool({
    name: 'slow_compute',
    description: 'Computes for `seconds` seconds; a task when the client allows',
    inputSchema: SLOW_COMPUTE_INPUT,
    taskSupport: 'optional',
  })
  async slowCompute(
    @Args('seconds') seconds: number | undefined,
    @Args('label') label: string | undefined,
    @McpCtx() ctx: McpContext,
  ): Promise<ContentBlock> {
    const total = seconds ?? 3;
    const name = label ?? 'default';
    for (let done = 1; done <= total; done++) {
      await sleep(1_000, undefined, { signal: ctx.signal });
      ctx.reportProgress({ progress: done, total, message: `${name}: ${done}/${total}` });
    }
    return Content.text(`Computation "${name}" completed after ${total} seconds. Result: 42.`);
  }

  /** A tool error ends the task `completed` with `isError`, not `failed`. */
  @Tool({
    name: 'failing_job',
    description: 'Always fails with a tool error; needs the tasks extension',
    taskSupport: 'required',
  })
  async failingJob(): Promise<never> {
    await sleep(200);
    throw new ToolError('Simulated failure: the job crashed');
  }

  /** A protocol error (McpError) ends the task `failed`, with the JSON-RPC error. */
  @Tool({
    name: 'protocol_error_job',
    description: 'Always fails with a JSON-RPC error; needs the tasks extension',
    taskSupport: 'required',
  })
  async protocolErrorJob(): Promise<never> {
    await sleep(200);
    throw new McpError(ErrorCode.InternalError, 'Simulated protocol error: the worker lost its connection');
  }

  /** Asks inside the task: it goes `input_required` until `tasks/update` answers. */
  @Tool({
    name: 'confirm_delete',
    description: 'Asks the user to confirm before deleting a file; needs the tasks extension',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    taskSupport: 'required',
  })
  async confirmDelete(
    @Args('filename') filename: string | undefined,
    @McpCtx() ctx: McpContext,
  ): Promise<ContentBlock> {
    const file = filename ?? 'important.txt';
    const answer = await ctx.elicit(`Delete '${file}'?`, DELETE_CONFIRM_FORM);
    const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
    return Content.text(confirmed ? `Deleted '${file}'` : `Kept '${file}'`);
  }

  /** Two asks awaited together are outstanding together, and can be answered one at a time. */
  @Tool({
    name: 'multi_input',
    description: 'Asks for a name and a confirmation at once; needs the tasks extension',
    taskSupport: 'required',
  })
  async multiInput(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const [name, confirm] = await Promise.all([
      ctx.elicit('Enter your name:', NAME_FORM),
      ctx.elicit('Confirm the action?', DELETE_CONFIRM_FORM),
    ]);
    return Content.text(`name=${String(name.content?.name)} confirmed=${String(confirm.content?.confirm)}`);
  }

  /** Input rounds in the request first (`deferTask`), then `ctx.startTask()` answers with the task. */
  @Tool({
    name: 'test_tool_with_task',
    description: 'Asks for a name, then greets from a task',
    taskSupport: 'required',
    deferTask: true,
  })
  async withTask(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.elicit('What is your name?', NAME_FORM, { key: 'user_name' });
    await ctx.startTask();
    return Content.text(`Hello, ${String(answer.content?.name)}! (from task ${ctx.taskId})`);
  }
}
