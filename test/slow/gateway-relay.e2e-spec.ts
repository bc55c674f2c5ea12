import 'reflect-metadata';
import type { Client } from '@modelcontextprotocol/client';
import { TASKS_EXTENSION } from '../../src/protocol/extensions/tasks.js';
import { createMcpTestClient, mcpHeaders, mcpMessage, type InputAnswers } from '../../src/testing/index.js';
import { connect, startGateway, textOf, until, type Asked, type Gateway } from '../support/gateway-app.js';
import {
  STDIO_UPSTREAM,
  startLibraryUpstream,
  startSdkV1Upstream,
  type RunningUpstream,
} from '../support/gateway-upstreams.js';

const asked = (): Asked => ({ elicitations: [], samplings: [], logs: [] });

describe("a gateway relays its upstreams' questions and logs to the caller, across the eras", () => {
  let weather: RunningUpstream;
  let legacy: Awaited<ReturnType<typeof startSdkV1Upstream>>;
  let gateway: Gateway;

  beforeAll(async () => {
    [weather, legacy] = await Promise.all([startLibraryUpstream(), startSdkV1Upstream()]);
    gateway = await startGateway(
      [
        { prefix: 'weather', url: weather.url },
        { prefix: 'legacy', url: legacy.url },
        { prefix: 'files', command: process.execPath, args: [STDIO_UPSTREAM] },
      ],
      'express',
      [],
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all([weather?.close(), legacy?.close()]);
  });

  describe.each(['2026', '2025'] as const)('a %s-era client', (era) => {
    let client: Client;
    const seen = asked();
    beforeAll(async () => {
      client = await connect(gateway.url, era, {}, { name: 'Ada', model: 'Rain on the roof' }, seen);
    });
    afterAll(() => client?.close());
    beforeEach(() => {
      seen.elicitations.length = 0;
      seen.samplings.length = 0;
      seen.logs.length = 0;
    });

    it("answers a 2026 upstream's input_required round (elicitation) through the gateway", async () => {
      const result = await client.callTool({ name: 'weather_greet', arguments: {} });
      expect(textOf(result)).toBe('Hello, Ada');
      expect(seen.elicitations).toEqual(['Who is asking?']);
    });

    it("answers a 2026 upstream's sampling request through the gateway", async () => {
      const result = await client.callTool({ name: 'weather_haiku', arguments: {} });
      expect(textOf(result)).toBe('The model wrote: Rain on the roof');
      expect(JSON.stringify(seen.samplings)).toContain('Write a haiku about rain');
    });

    it("answers a 2025-era upstream's elicitation request, made during the call, and gets its log", async () => {
      const result = await client.callTool({
        name: 'legacy_confirm',
        arguments: {},
        _meta: { 'io.modelcontextprotocol/logLevel': 'info' },
      });
      expect(textOf(result)).toBe('Confirmed by Ada');
      expect(seen.elicitations).toEqual(['Your name, please']);
      expect(seen.logs).toContainEqual(expect.objectContaining({ level: 'info', data: 'asking for a name' }));
    });

    it("answers a 2025-era upstream's sampling request", async () => {
      const result = await client.callTool({ name: 'legacy_summarize', arguments: {} });
      expect(textOf(result)).toBe('Summary: Rain on the roof');
    });

    it("answers a stdio upstream's elicitation request", async () => {
      const result = await client.callTool({ name: 'files_ask', arguments: {} });
      expect(textOf(result)).toBe('Hi Ada');
      expect(seen.elicitations).toEqual(['Name?']);
    });

    it('keeps concurrent calls apart: each caller answers only its own call', async () => {
      const other = asked();
      const grace = await connect(gateway.url, era, {}, { name: 'Grace', model: '' }, other);
      try {
        const [mine, theirs] = await Promise.all([
          client.callTool({ name: 'legacy_confirm', arguments: {} }),
          grace.callTool({ name: 'legacy_confirm', arguments: {} }),
        ]);
        expect(textOf(mine)).toBe('Confirmed by Ada');
        expect(textOf(theirs)).toBe('Confirmed by Grace');
        expect(other.elicitations).toEqual(['Your name, please']);
      } finally {
        await grace.close();
      }
    });
  });

  it.each([
    // A handler of this library runs again on the retry, and logs again; stdio sends none on the call's stream.
    ['weather_greet', ['about to ask for a name', 'about to ask for a name']],
    ['legacy_confirm', ['asking for a name']],
    ['files_ask', []],
  ])("the testing kit's client answers %s's question through the gateway, and gets its logs", async (tool, logs) => {
    const kit = createMcpTestClient(gateway.url.replace(/\/mcp$/, ''));
    const answers: InputAnswers = (request) => {
      expect(request.method).toBe('elicitation/create');
      return { action: 'accept', content: { name: 'Mo' } };
    };
    const exchange = await kit.callTool(tool, {}, { answers, meta: { 'io.modelcontextprotocol/logLevel': 'info' } });
    expect(textOf(exchange.result!)).toMatch(/Mo$/);
    expect(exchange.rounds).toBe(1);
    const logged = exchange.notifications.filter((n) => n.method === 'notifications/message');
    expect(logged.map((n) => n.params?.data)).toEqual(logs);
  });

  it('refuses a stdio question it cannot tell the call of (two calls in flight) rather than ask the wrong caller', async () => {
    const seen = asked();
    const client = await connect(gateway.url, '2026', {}, { name: 'Ada' }, seen);
    const stop = new AbortController();
    try {
      const slow = client
        .callTool({ name: 'files_slow', arguments: {} }, { signal: stop.signal })
        .catch(() => undefined);
      // The slow call is in flight once the gateway has sent it on: a third request on the same pipe follows it.
      await client.callTool({ name: 'files_read_file', arguments: { path: 'x' } });
      const result = await client.callTool({ name: 'files_ask', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Error: upstream "files".*none could be told to be its own/);
      expect(seen.elicitations).toEqual([]);
      stop.abort();
      await slow;
    } finally {
      await client.close();
    }
  });

  it('refuses the upstream a question the caller cannot answer, and ends the call with the upstream', async () => {
    const client = await connect(gateway.url, '2026', {});
    try {
      const result = await client.callTool({ name: 'legacy_confirm', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/elicitation\/create/);
    } finally {
      await client.close();
    }
  });
});

type Json = Record<string, any>;

/**
 * A 2026-07-28 request by hand, built by the testing kit (the official client does not speak the tasks wire
 * yet): its status and JSON-RPC answer.
 */
async function send(url: string, method: string, params: Json, capabilities: Json): Promise<Json> {
  const body = mcpMessage(method, params, { clientCapabilities: capabilities });
  const response = await fetch(url, { method: 'POST', headers: mcpHeaders(body), body: JSON.stringify(body) });
  return { status: response.status, ...((await response.json()) as Json) };
}

/** The result of a 2026-07-28 request by hand; an error answer fails. */
async function rpc(url: string, method: string, params: Json, capabilities: Json): Promise<Json> {
  const body = await send(url, method, params, capabilities);
  if (body.error) throw new Error(JSON.stringify(body.error));
  expect(body.status).toBe(200);
  return body.result;
}

describe("a gateway passes a 2026-07-28 upstream's input rounds through without keeping them", () => {
  const secret = 'a-request-state-secret-shared-by-both-gateways-0123456789';
  let weather: RunningUpstream;
  let first: Gateway;
  let second: Gateway;
  beforeAll(async () => {
    weather = await startLibraryUpstream();
    const options = { requestState: { secret } };
    [first, second] = await Promise.all([
      startGateway([{ prefix: 'weather', url: weather.url }], 'express', [], options),
      startGateway([{ prefix: 'weather', url: weather.url }], 'fastify', [], options),
    ]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await weather?.close();
  });

  it("asks the upstream's question under the upstream's key, and a retry on another instance completes the call", async () => {
    const caller = { elicitation: { form: {} } };
    const round = await rpc(first.url, 'tools/call', { name: 'weather_greet', arguments: {} }, caller);
    expect(round.resultType).toBe('input_required');
    expect(Object.keys(round.inputRequests)).toEqual(['elicit_0']);
    expect(round.inputRequests.elicit_0).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Who is asking?' },
    });
    const retry = {
      name: 'weather_greet',
      arguments: {},
      inputResponses: { elicit_0: { action: 'accept', content: { name: 'Kay' } } },
      requestState: round.requestState,
    };
    const done = await rpc(second.url, 'tools/call', retry, caller);
    expect(textOf(done)).toBe('Hello, Kay');
  });

  it("tells the upstream what the caller can answer: a caller without elicitation gets the upstream's -32021", async () => {
    const answer = await send(
      first.url,
      'tools/call',
      { name: 'weather_greet', arguments: {} },
      {
        sampling: {},
      },
    );
    expect(answer.status).toBe(400);
    expect(answer.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });
});

describe('a gateway runs a mounted call as a task for a client that declared the tasks extension', () => {
  const capabilities = { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } };
  let legacy: Awaited<ReturnType<typeof startSdkV1Upstream>>;
  let weather: RunningUpstream;
  let gateway: Gateway;
  beforeAll(async () => {
    [weather, legacy] = await Promise.all([startLibraryUpstream(), startSdkV1Upstream()]);
    gateway = await startGateway(
      [
        { prefix: 'legacy', url: legacy.url },
        { prefix: 'weather', url: weather.url },
      ],
      'fastify',
      [],
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all([weather?.close(), legacy?.close()]);
  });

  const call = (method: string, params: Json) => rpc(gateway.url, method, params, capabilities);
  const untilStatus = (taskId: string, status: string) =>
    until(async () => {
      const task = await call('tasks/get', { taskId });
      return task.status === status ? task : undefined;
    }, `the task was ${status}`);

  it.each(['legacy_confirm', 'weather_greet'])(
    "%s: the upstream call runs in the gateway's task, its question waits for tasks/update, the task completes with its result",
    async (tool) => {
      const created = await call('tools/call', { name: tool, arguments: {} });
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = created.taskId as string;
      const waiting = await untilStatus(taskId, 'input_required');
      const [[key, request]] = Object.entries(waiting.inputRequests as Json);
      expect(request).toMatchObject({ method: 'elicitation/create' });
      await call('tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { name: 'Lin' } } } });
      const done = await untilStatus(taskId, 'completed');
      expect(textOf(done.result)).toMatch(/Lin/);
    },
  );

  it("cancels a 2025-era upstream's call running in the gateway's task with tasks/cancel", async () => {
    legacy.cancelled.length = 0;
    const created = await call('tools/call', { name: 'legacy_confirm', arguments: {} });
    const taskId = created.taskId as string;
    await untilStatus(taskId, 'input_required');
    await call('tasks/cancel', { taskId });
    expect((await call('tasks/get', { taskId })).status).toBe('cancelled');
    await until(async () => (legacy.cancelled.includes('confirm') ? true : undefined), 'the upstream saw the cancel');
  });

  it("relays a 2026 upstream's own task: its question, the answer, its status and its result", async () => {
    const created = await call('tools/call', { name: 'weather_monthly', arguments: {} });
    const taskId = created.taskId as string;
    const waiting = await untilStatus(taskId, 'input_required');
    // The upstream's question, under the upstream's key; its status message is the gateway task's.
    expect(Object.keys(waiting.inputRequests)).toEqual(['elicit_0']);
    expect(waiting.inputRequests.elicit_0).toMatchObject({ params: { message: 'Which month?' } });
    expect(waiting.statusMessage).toBe('choosing the month');
    await call('tasks/update', {
      taskId,
      inputResponses: { elicit_0: { action: 'accept', content: { month: 'May' } } },
    });
    const done = await untilStatus(taskId, 'completed');
    expect(textOf(done.result)).toBe('Report for May');
  });

  it("cancels a 2026 upstream's own task with tasks/cancel, and a caller without tasks gets the upstream's -32021", async () => {
    weather.cancelled.length = 0;
    const created = await call('tools/call', { name: 'weather_monthly', arguments: {} });
    const taskId = created.taskId as string;
    await untilStatus(taskId, 'input_required');
    await call('tasks/cancel', { taskId });
    await until(
      async () => (weather.cancelled.includes('monthly') ? true : undefined),
      'the upstream task was cancelled',
    );
    const refused = await send(gateway.url, 'tools/call', { name: 'weather_monthly', arguments: {} }, {});
    expect(refused.error).toMatchObject({ code: -32021 });
  });
});
