import { isPlainObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { InputResponses } from '../../protocol/mcp-types.js';
import { declaresTasksExtension, tasksExtensionRequired, type DetailedTask } from '../../protocol/extensions/tasks.js';
import { answers } from '../input-required.js';
import type { Caller } from '../access/caller-identity.js';
import type { SchemaCompiler } from '../schema/schema-compiler.js';
import type { TaskRunner } from '../tasks/task-runner.js';

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` (SEP-2663). A client that did not declare the extension on
 * the request gets -32021 before any task is looked up; a task is found only by its owner.
 */
export class TaskMethods {
  constructor(
    private readonly runner: TaskRunner,
    private readonly schemas: SchemaCompiler,
  ) {}

  async get(request: JsonRpcRequest, caller: Caller): Promise<DetailedTask> {
    gate(request);
    return this.runner.get(request.params?.taskId, caller);
  }

  /** An empty ack: answers are taken for what is outstanding, anything else is ignored (the spec's SHOULD). */
  async update(request: JsonRpcRequest, caller: Caller): Promise<Record<string, never>> {
    gate(request);
    const responses = request.params?.inputResponses;
    if (!isPlainObject(responses)) throw McpError.invalidParams('Invalid params: "inputResponses" must be an object');
    await this.runner.update(request.params?.taskId, caller, responses as InputResponses, (asked, value) =>
      answers(asked, value, this.schemas),
    );
    return {};
  }

  /** An empty ack, also for a task that has already ended (which stays as it was). */
  async cancel(request: JsonRpcRequest, caller: Caller): Promise<Record<string, never>> {
    gate(request);
    await this.runner.cancel(request.params?.taskId, caller);
    return {};
  }
}

function gate(request: JsonRpcRequest): void {
  if (!declaresTasksExtension(request)) throw tasksExtensionRequired();
}
