import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import { type McpContext } from '../../src/index.js';
import { McpKernel } from '../../src/core/index.js';
import { TASKS_EXTENSION } from '../../src/protocol/extensions/tasks.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} }, roots: {}, sampling: {} };

function request(
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = WITH_TASKS,
  id: string | number = 1,
) {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  };
}

async function result(
  kernel: McpKernel,
  message: Record<string, unknown>,
  principal?: unknown,
): Promise<Record<string, any>> {
  const response = await kernel.handleRequest(message, { principal });
  if (!response || !('result' in response)) throw new Error(`expected a result, got ${JSON.stringify(response)}`);
  return response.result;
}

async function until(
  kernel: McpKernel,
  taskId: string,
  status: string,
  principal?: unknown,
): Promise<Record<string, any>> {
  for (;;) {
    const task = await result(kernel, request('tasks/get', { taskId }), principal);
    if (task.status === status) return task;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('McpKernel: the handler context inside a task', () => {
  let kernel: McpKernel;
  let release: () => void;
  let seen: McpContext | undefined;

  beforeEach(() => {
    kernel = new McpKernel({ name: 'k', version: '1.0.0' });
    const gate = new Promise<void>((resolve) => (release = resolve));
    kernel.addTool({
      name: 'inputs',
      description: 'Asks for roots and a sample together, by hand',
      inputSchema: { type: 'object' },
      taskSupport: 'required',
      handler: async (_args, _answers, ctx: McpContext) => {
        seen = ctx;
        ctx.log('error', 'never sent: a task has no stream');
        ctx.reportProgress({ progress: 1, total: 4 });
        ctx.reportProgress({ progress: 1, total: 4, message: 'not strictly increasing: dropped' });
        await gate;
        const answers = await ctx.requestInputs({
          roots: { method: 'roots/list', params: {} },
          model: {
            method: 'sampling/createMessage',
            params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 },
          },
        });
        await ctx.startTask();
        return Object.keys(answers).sort().join(',');
      },
    });
  });
  afterEach(() => kernel.close());

  it('waits for every hand-built request through tasks/update; progress is the status message; startTask resolves', async () => {
    const created = await result(kernel, request('tools/call', { name: 'inputs' }));
    expect(created.resultType).toBe('task');
    const working = await until(kernel, created.taskId, 'working');
    expect(seen?.taskId).toBe(created.taskId);
    while ((await result(kernel, request('tasks/get', { taskId: created.taskId }))).statusMessage !== '1/4')
      await new Promise((r) => setImmediate(r));
    expect(working.status).toBe('working');
    release();
    const asking = await until(kernel, created.taskId, 'input_required');
    expect(Object.keys(asking.inputRequests).sort()).toEqual(['model', 'roots']);
    await result(
      kernel,
      request('tasks/update', {
        taskId: created.taskId,
        inputResponses: { roots: { roots: [{ uri: 'file:///work' }] } },
      }),
    );
    await result(
      kernel,
      request('tasks/update', {
        taskId: created.taskId,
        inputResponses: { model: { role: 'assistant', model: 'm', content: { type: 'text', text: 'hello' } } },
      }),
    );
    expect((await until(kernel, created.taskId, 'completed')).result.content).toEqual([
      { type: 'text', text: 'model,roots' },
    ]);
  });
});

describe('McpKernel: notifications/tasks go to the task owner’s streams only', () => {
  it('sends a stream the states of its caller’s tasks, and nothing to another caller naming the same id', async () => {
    const kernel = new McpKernel({ name: 'k', version: '1.0.0' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    kernel.addTool({
      name: 'job',
      description: 'Waits',
      inputSchema: { type: 'object' },
      taskSupport: 'optional',
      handler: async () => (await gate, 'done'),
    });
    kernel.addTool({
      name: 'marker',
      description: 'For list_changed',
      inputSchema: { type: 'object' },
      handler: () => 'x',
    });
    const alice = { sub: 'alice' };
    const mallory = { sub: 'mallory' };
    const { taskId } = await result(kernel, request('tools/call', { name: 'job' }), alice);

    const toAlice: JsonRpcNotification[] = [];
    const toMallory: JsonRpcNotification[] = [];
    const listening = [
      kernel.handleRequest(request('subscriptions/listen', { notifications: { taskIds: [taskId] } }, WITH_TASKS, 'a'), {
        principal: alice,
        notify: (n) => void toAlice.push(n),
      }),
      kernel.handleRequest(
        request(
          'subscriptions/listen',
          { notifications: { taskIds: [taskId], toolsListChanged: true } },
          WITH_TASKS,
          'm',
        ),
        {
          principal: mallory,
          notify: (n) => void toMallory.push(n),
        },
      ),
    ];
    expect(toMallory[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [taskId] } },
    });

    release();
    await until(kernel, taskId, 'completed', alice);
    expect(toAlice.map((n) => [n.method, n.params?.status])).toEqual([
      ['notifications/subscriptions/acknowledged', undefined],
      ['notifications/tasks', 'completed'],
    ]);
    // Mallory's stream works (it gets the list change), and never got Alice's task.
    kernel.removeTool('marker');
    expect(toMallory.map((n) => n.method)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
    ]);
    kernel.close();
    await Promise.all(listening);
  });
});
