import type { INestApplication } from '@nestjs/common';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { TASKS_EXTENSION } from '../../src/protocol/extensions/tasks.js';

export type Json = Record<string, any>;

/** The client capabilities that opt a request into the tasks extension. */
export const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

export interface TaskRequestOptions {
  /** The request's client capabilities; default: the tasks extension only. */
  capabilities?: Json;
  /** Extra headers (a bearer token), or undefined to drop one of the conforming headers. */
  headers?: Record<string, string | undefined>;
}

/** A conforming request (Mcp-Name is the task id on tasks/*) with the tasks extension declared. */
export function taskRequest(app: INestApplication, method: string, params: Json, options: TaskRequestOptions = {}) {
  return createMcpTestClient(app).post(
    mcpMessage(method, params, { clientCapabilities: options.capabilities ?? WITH_TASKS }),
    options.headers,
  );
}

/** Calls a tool that must answer with a task; returns the CreateTaskResult. */
export async function createTask(
  app: INestApplication,
  name: string,
  args: Json = {},
  options: TaskRequestOptions = {},
): Promise<Json> {
  const res = await taskRequest(app, 'tools/call', { name, arguments: args }, options);
  expect(res.status).toBe(200);
  // The whole body, so that an error answered in its place shows in the failure.
  expect(res.body).toMatchObject({ result: { resultType: 'task', status: 'working' } });
  return res.body.result;
}

/** tasks/get, expecting an answer. */
export async function getTask(app: INestApplication, taskId: string, options: TaskRequestOptions = {}): Promise<Json> {
  const res = await taskRequest(app, 'tasks/get', { taskId }, options);
  expect(res.status).toBe(200);
  expect(res.body.result.resultType).toBe('complete');
  return res.body.result;
}

/** Polls tasks/get until the task shows a status (the jest timeout bounds it; no clock is asserted on). */
export async function waitForStatus(
  app: INestApplication,
  taskId: string,
  status: string,
  options: TaskRequestOptions = {},
): Promise<Json> {
  for (;;) {
    const task = await getTask(app, taskId, options);
    if (task.status === status) return task;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
