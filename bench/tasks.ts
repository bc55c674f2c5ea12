import 'reflect-metadata';
import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { Bench } from 'tinybench';
import { MCPServer, McpModule } from '../src/index.js';
import { ADD_TOOL, PROTOCOL_VERSION } from './fixtures.js';
import { createNestApp } from './servers/nest-app.js';
import type { McpKernel, TaskStore } from '../src/core/index.js';
import { TASKS_EXTENSION } from '../src/protocol/extensions/tasks.js';

/**
 * The cost of a task round trip (SEP-2663): `tools/call` answered with a task, then `tasks/get` until the task
 * is completed, next to the same tool answered in its request. Once in process on the kernel (tinybench), once
 * over HTTP on Nest + Fastify on loopback, one request at a time (latency, not throughput: a task is two or
 * more requests by design, so the ratio is what it costs a client to poll rather than wait). Beside them, the
 * immediate-result shortcut: the client declares the extension, the tool's task support is optional, and its
 * handler settles at once, so the call is answered with the result and no task.
 */
export interface TaskRoundTrip {
  plain: number;
  task: number;
  /** `tasks/get` requests per round trip, on average, until the task showed `completed`. */
  gets: number;
  /** The same call from a client that declares the extension, answered with its result in place of a task. */
  shortcut: number;
}

const add = ({ a, b }: { a: number; b: number }) => a + b;
// Optional task support: a plain call without the extension, answered at once with it (the shortcut).
const ADD_OPTIONAL = { ...ADD_TOOL, taskSupport: 'optional' as const, handler: add };
// Required: a task whatever its speed, for the round trip.
const ADD_AS_TASK = { ...ADD_TOOL, name: 'add_as_task', taskSupport: 'required' as const, handler: add };

function message(method: string, params: Record<string, unknown>, withTasks: boolean) {
  const capabilities = withTasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  return {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  };
}

/** One round trip through `send`: create, then get until completed; returns how many gets it took. */
async function roundTrip(send: (body: ReturnType<typeof message>) => Promise<Record<string, any>>): Promise<number> {
  const created = await send(message('tools/call', { name: ADD_AS_TASK.name, arguments: { a: 2, b: 3 } }, true));
  if (created.resultType !== 'task') throw new Error(`expected a task, got ${JSON.stringify(created)}`);
  for (let gets = 1; ; gets++) {
    const task = await send(message('tasks/get', { taskId: created.taskId }, true));
    if (task.status === 'completed') {
      if (task.result.content[0].text !== '5') throw new Error(`unexpected task result ${JSON.stringify(task)}`);
      return gets;
    }
    if (task.status !== 'working') throw new Error(`unexpected task ${JSON.stringify(task)}`);
  }
}

/** `tools/call` of the optional tool, answered in its request: without the extension, or with it (the shortcut). */
async function directCall(
  send: (body: ReturnType<typeof message>) => Promise<Record<string, any>>,
  withTasks: boolean,
): Promise<void> {
  const result = await send(message('tools/call', { name: ADD_OPTIONAL.name, arguments: { a: 2, b: 3 } }, withTasks));
  if (result.resultType === 'task' || result.content?.[0]?.text !== '5')
    throw new Error(`unexpected result ${JSON.stringify(result)}`);
}

/**
 * In process: `handleRequest` only on `Kernel` (the built package's), medians in microseconds; on `store` when
 * given, else in memory.
 */
export async function measureKernelTasks(
  smoke: boolean,
  Kernel: typeof McpKernel,
  store?: TaskStore,
): Promise<TaskRoundTrip> {
  // Generous bounds: the benchmark creates tasks far faster than a TTL would let them go.
  const kernel = new Kernel({
    name: 'bench',
    version: '1.0.0',
    tasks: { store, maxTasks: 10_000_000, maxTasksPerCaller: 10_000_000, ttlMs: 60_000 },
  });
  kernel.addTool(ADD_OPTIONAL);
  kernel.addTool(ADD_AS_TASK);
  const send = async (body: ReturnType<typeof message>) => {
    const response = await kernel.handleRequest(body);
    if (!response || !('result' in response)) throw new Error(`kernel answered ${JSON.stringify(response)}`);
    return response.result as Record<string, any>;
  };
  let gets = 0;
  let trips = 0;
  const bench = new Bench({ time: smoke ? 200 : 2000, warmupTime: smoke ? 50 : 500 });
  bench.add('plain tools/call', () => directCall(send, false));
  bench.add('task round trip', async () => {
    gets += await roundTrip(send);
    trips++;
  });
  bench.add('tools/call answered in place of a task', () => directCall(send, true));
  await bench.run();
  const p50 = (i: number) => (bench.tasks[i].result as { latency: { p50: number } }).latency.p50 * 1000;
  kernel.close();
  return { plain: p50(0), task: p50(1), gets: gets / Math.max(trips, 1), shortcut: p50(2) };
}

/** Over HTTP on Nest + Fastify, sequential requests from this process; medians in milliseconds. */
export async function measureHttpTasks(smoke: boolean): Promise<TaskRoundTrip> {
  @Injectable()
  class TaskBenchTools implements OnModuleInit {
    constructor(@Inject(MCPServer) private readonly server: MCPServer) {}
    onModuleInit(): void {
      this.server.addTool(ADD_OPTIONAL);
      this.server.addTool(ADD_AS_TASK);
    }
  }
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'bench',
        version: '1.0.0',
        observability: { logFailedCalls: false },
        tasks: { maxTasksPerCaller: 100_000, maxTasks: 100_000 },
      }),
    ],
    providers: [TaskBenchTools],
  })
  class TaskBenchModule {}

  const app = await createNestApp(TaskBenchModule, 'fastify');
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
  const send = async (body: ReturnType<typeof message>) => {
    const params = body.params as Record<string, unknown>;
    const name = body.method === 'tools/call' ? (params.name as string) : (params.taskId as string);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': body.method,
        'mcp-name': name,
      },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as { result?: Record<string, any>; error?: unknown };
    if (!json.result) throw new Error(`HTTP answered ${JSON.stringify(json)}`);
    return json.result;
  };
  try {
    const runs = smoke ? 20 : 1000;
    const timed = async (work: () => Promise<unknown>): Promise<number> => {
      const started = process.hrtime.bigint();
      await work();
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    for (let i = 0; i < runs / 10; i++)
      await Promise.all([directCall(send, false), roundTrip(send), directCall(send, true)]);
    const plain: number[] = [];
    const task: number[] = [];
    const shortcut: number[] = [];
    let gets = 0;
    // Interleaved, so a busy neighbour skews all alike.
    for (let i = 0; i < runs; i++) {
      plain.push(await timed(() => directCall(send, false)));
      task.push(await timed(async () => (gets += await roundTrip(send))));
      shortcut.push(await timed(() => directCall(send, true)));
    }
    return { plain: median(plain), task: median(task), gets: gets / runs, shortcut: median(shortcut) };
  } finally {
    await app.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
