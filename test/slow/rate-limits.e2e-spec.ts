import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TASKS_EXTENSION } from '../../src/protocol/extensions/tasks.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { HTTP_ADAPTERS } from '../support/create-app.js';
import { FixtureProcess } from '../support/fixture-process.js';
import { legacyHeaders, legacyRequest } from '../support/legacy-client.js';
import { TS_REGISTER } from '../support/backend-process.js';
import { StdioChild } from '../support/stdio-child.js';

type Message = Record<string, any>;

const THROTTLED_MAIN = fileURLToPath(new URL('../support/throttled-main.ts', import.meta.url));
const UNTHROTTLED_MAIN = fileURLToPath(new URL('../support/unthrottled-main.ts', import.meta.url));
const WITHOUT_THROTTLER = fileURLToPath(new URL('../support/without-throttler.cjs', import.meta.url));

interface Answer {
  status: number;
  headers: Headers;
  body: Message;
}

/**
 * `McpThrottlerGuard` in an app that limits its tools as it limits its routes (test/support/throttled-main.ts:
 * `ThrottlerModule.forRoot` with a default of 100 a minute, `@Throttle` of 2 a minute on `quote` and `restock`,
 * 1 a minute on the `prices://today` resource), through real HTTP on both adapters, in both eras, and on stdio.
 */
describe.each(HTTP_ADAPTERS)('rate limits on MCP calls on %s', (adapter) => {
  let app: FixtureProcess;

  beforeAll(async () => {
    app = await FixtureProcess.start({ THROTTLED_ADAPTER: adapter }, THROTTLED_MAIN);
  }, 120_000);
  afterAll(() => app?.stop());

  async function post(body: Message, headers: Record<string, string | undefined>, token: string): Promise<Answer> {
    const sent: Record<string, string> = { authorization: `Bearer ${token}` };
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
    const res = await fetch(`${app.origin}/mcp`, { method: 'POST', headers: sent, body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Message };
  }
  const send = (token: string, method: string, params: Record<string, unknown> = {}) => {
    const body = mcpMessage(method, params);
    return post(body, mcpHeaders(body), token);
  };
  const callTool = (token: string, name: string) => send(token, 'tools/call', { name, arguments: {} });

  it("answers a tool's third call within the minute with 429 and -32023, while another principal is still served", async () => {
    expect((await callTool('user-ada', 'quote')).body.result.content[0].text).toBe('quoted');
    expect((await callTool('user-ada', 'quote')).body.result.content[0].text).toBe('quoted');
    const third = await callTool('user-ada', 'quote');
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe(-32023);
    expect(Number.isInteger(third.body.error.data.retryAfterMs)).toBe(true);
    expect(third.body.error.data.retryAfterMs).toBeGreaterThan(0);
    expect(third.body.error.data).toMatchObject({ limit: 2, remaining: 0 });
    const retryAfter = third.headers.get('retry-after')!;
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(third.headers.get('ratelimit-limit')).toBe('2');
    expect(third.headers.get('ratelimit-remaining')).toBe('0');

    const other = await callTool('user-bob', 'quote');
    expect(other.status).toBe(200);
    expect(other.body.result.content[0].text).toBe('quoted');
  });

  it('counts per caller and what requestState.bind reads: one user has a budget per tenant', async () => {
    const inTenant = (tenant: string) => {
      const body = mcpMessage('tools/call', { name: 'quote', arguments: {} });
      return post(body, { ...mcpHeaders(body), 'x-tenant': tenant }, 'user-gus');
    };
    expect((await inTenant('acme')).status).toBe(200);
    expect((await inTenant('acme')).status).toBe(200);
    expect((await inTenant('globex')).status).toBe(200);
    expect((await inTenant('acme')).status).toBe(429);
  });

  it("counts each tool apart, and never refuses tools/list for a tool's spent limit", async () => {
    for (let i = 0; i < 3; i++) await callTool('user-cy', 'quote');
    expect((await callTool('user-cy', 'quote')).status).toBe(429);
    expect((await callTool('user-cy', 'restock')).body.result.content[0].text).toBe('restocked');
    for (let i = 0; i < 3; i++) {
      const list = await send('user-cy', 'tools/list');
      expect(list.status).toBe(200);
      expect(list.body.result.tools.map((tool: { name: string }) => tool.name)).toContain('quote');
    }
    expect((await callTool('user-cy', 'restock')).body.result.content[0].text).toBe('restocked');
    expect((await callTool('user-cy', 'restock')).status).toBe(429);
  });

  it("limits a resource's reads with its own @Throttle", async () => {
    const read = () => send('user-dee', 'resources/read', { uri: 'prices://today' });
    expect((await read()).body.result.contents[0].text).toBe('42');
    const refused = await read();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: -32023, data: { limit: 1, remaining: 0 } });
    expect(refused.headers.get('ratelimit-limit')).toBe('1');
  });

  it("ends a task's round over its tool's limit with the task failed on -32023 and its data", async () => {
    const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
    const asTask = async (method: string, params: Record<string, unknown>) => {
      const body = mcpMessage(method, params, { clientCapabilities: WITH_TASKS });
      return (await post(body, mcpHeaders(body), 'user-ivy')).body.result;
    };
    const settled = async (taskId: string) => {
      for (;;) {
        const task = await asTask('tasks/get', { taskId });
        if (task.status !== 'working') return task;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const report = () => asTask('tools/call', { name: 'report', arguments: {} });
    expect(await settled((await report()).taskId)).toMatchObject({ status: 'completed' });
    const refused = await settled((await report()).taskId);
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatchObject({ code: -32023, data: { limit: 1, remaining: 0 } });
    expect(refused.error.data.retryAfterMs).toBeGreaterThan(0);
  });

  it("keeps an upstream API's limit met inside a tool an isError result, never -32023", async () => {
    const res = await callTool('user-eve', 'forecast');
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error: the weather API is rate limited: try again in 30 seconds' }],
    });
  });

  it('answers the 2025-era leg with the same error, status and headers', async () => {
    const legacyCall = () =>
      post(legacyRequest('tools/call', { name: 'quote', arguments: {} }), legacyHeaders(), 'user-fay');
    expect((await legacyCall()).body.result.content[0].text).toBe('quoted');
    expect((await legacyCall()).status).toBe(200);
    const third = await legacyCall();
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: -32023, data: { limit: 2, remaining: 0 } });
    expect(third.body.error.data.retryAfterMs).toBeGreaterThan(0);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(third.headers.get('ratelimit-limit')).toBe('2');
    expect(third.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('answers a route tool that the route’s throttler refuses with -32023 and its Retry-After', async () => {
    expect((await callTool('user-hal', 'stock')).body.result.content[0].text).toBe('in stock');
    const refused = await callTool('user-hal', 'stock');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: -32023, message: 'ThrottlerException: Too Many Requests' });
    expect(refused.body.error.data.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('is the ThrottlerGuard it extends on a REST route: 429 with the throttler’s own body', async () => {
    expect((await fetch(`${app.origin}/ping`)).status).toBe(200);
    const refused = await fetch(`${app.origin}/ping`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ statusCode: 429, message: 'ThrottlerException: Too Many Requests' });
  });
});

describe.each(HTTP_ADAPTERS)('McpThrottlerGuard as the global APP_GUARD on %s', (adapter) => {
  let app: FixtureProcess;

  beforeAll(async () => {
    app = await FixtureProcess.start(
      { THROTTLED_ADAPTER: adapter, THROTTLED_GLOBAL: '1', THROTTLED_DEFAULT_LIMIT: '3' },
      THROTTLED_MAIN,
    );
  }, 120_000);
  afterAll(() => app?.stop());

  const send = async (token: string, method: string, params: Record<string, unknown> = {}) => {
    const body = mcpMessage(method, params);
    const res = await fetch(`${app.origin}/mcp`, {
      method: 'POST',
      headers: { ...mcpHeaders(body), authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Message };
  };
  const callTool = (token: string, name: string) => send(token, 'tools/call', { name, arguments: {} });

  it("counts each tool per caller under its @Throttle, and the others under the module's default", async () => {
    for (let i = 0; i < 2; i++) expect((await callTool('user-ada', 'quote')).status).toBe(200);
    const third = await callTool('user-ada', 'quote');
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: -32023, data: { limit: 2, remaining: 0 } });
    expect(third.headers.get('ratelimit-limit')).toBe('2');
    expect((await callTool('user-bob', 'quote')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await callTool('user-ada', 'forecast')).body.result.isError).toBe(true);
    expect((await callTool('user-ada', 'forecast')).body.error).toMatchObject({ code: -32023, data: { limit: 3 } });
  });

  it('never counts the MCP POST itself: lists past the default limit are all answered', async () => {
    for (let i = 0; i < 5; i++) {
      const list = await send('user-cy', 'tools/list');
      expect(list.status).toBe(200);
      expect(list.body.result.tools.map((tool: { name: string }) => tool.name)).toContain('quote');
    }
    expect((await callTool('user-cy', 'quote')).status).toBe(200);
  });

  it("limits the app's REST routes as ThrottlerGuard does", async () => {
    expect((await fetch(`${app.origin}/ping`)).status).toBe(200);
    expect((await fetch(`${app.origin}/ping`)).status).toBe(429);
  });
});

describe('rate limits on MCP calls in a 2025-era session', () => {
  let app: FixtureProcess;

  beforeAll(async () => {
    app = await FixtureProcess.start({ THROTTLED_LEGACY: 'stateful' }, THROTTLED_MAIN);
  }, 120_000);
  afterAll(() => app?.stop());

  it('answers the third call in a session with 429, -32023 and the rate-limit headers', async () => {
    const headers = { ...legacyHeaders(), authorization: 'Bearer user-kim' } as Record<string, string>;
    const post = (body: Message, session?: string) =>
      fetch(`${app.origin}/mcp`, {
        method: 'POST',
        headers: session ? { ...headers, 'mcp-session-id': session } : headers,
        body: JSON.stringify(body),
      });
    const init = legacyRequest('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'agent', version: '1.0.0' },
    });
    const session = (await post(init)).headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    const quote = () => post(legacyRequest('tools/call', { name: 'quote', arguments: {} }), session);
    expect((await quote()).status).toBe(200);
    expect((await quote()).status).toBe(200);
    const third = await quote();
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(third.headers.get('ratelimit-remaining')).toBe('0');
    expect(((await third.json()) as Message).error).toMatchObject({ code: -32023, data: { limit: 2, remaining: 0 } });
  });
});

describe('rate limits on MCP calls over stdio', () => {
  let app: StdioChild;

  beforeAll(async () => {
    app = await StdioChild.start(THROTTLED_MAIN, { THROTTLED_TRANSPORT: 'stdio' });
  }, 150_000);
  afterAll(() => app?.stop());
  const call = (method: string, params: Record<string, unknown>) => app.call(method, params);

  it('answers the third call of one stdio client with -32023 and its data, and still lists the tool', async () => {
    const quote = () => call('tools/call', { name: 'quote', arguments: {} });
    expect((await quote()).result.content[0].text).toBe('quoted');
    expect((await quote()).result.content[0].text).toBe('quoted');
    const third = await quote();
    expect(third.error).toMatchObject({ code: -32023, data: { limit: 2, remaining: 0 } });
    expect(Number.isInteger(third.error.data.retryAfterMs)).toBe(true);
    expect(third.error.data.retryAfterMs).toBeGreaterThan(0);
    const list = await call('tools/list', {});
    expect(list.result.tools.map((tool: { name: string }) => tool.name)).toContain('quote');
  });
});

describe('nestjs-mcp where @nestjs/throttler is not installed', () => {
  it('serves an app that does not use McpThrottlerGuard: importing nestjs-mcp does not load the throttler', async () => {
    const app = await FixtureProcess.start({ NODE_OPTIONS: `--require ${WITHOUT_THROTTLER}` }, UNTHROTTLED_MAIN);
    try {
      const body = mcpMessage('tools/list');
      const res = await fetch(`${app.origin}/mcp`, {
        method: 'POST',
        headers: mcpHeaders(body),
        body: JSON.stringify(body),
      });
      expect(((await res.json()) as Message).result.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo']);
    } finally {
      await app.stop();
    }
  }, 120_000);

  it('fails the start-up of an app that uses it, naming the package to install', () => {
    const run = spawnSync(
      process.execPath,
      ['--require', WITHOUT_THROTTLER, '--import', TS_REGISTER, UNTHROTTLED_MAIN],
      {
        env: { ...process.env, PORT: '0', UNTHROTTLED_USE_GUARD: '1' },
        encoding: 'utf8',
        timeout: 100_000,
      },
    );
    expect(run.status).not.toBe(0);
    expect(run.stdout).not.toContain('listening on');
    expect(run.stderr).toContain('McpConfigurationError: McpThrottlerGuard needs @nestjs/throttler: install it');
  }, 120_000);
});
