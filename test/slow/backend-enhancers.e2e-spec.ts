import 'reflect-metadata';
import { createMcpTestClient, type McpTestClient } from '../../src/testing/index.js';
import { BackendProcess, tokenFor } from '../support/backend-process.js';
import { HTTP_ADAPTERS } from '../support/create-app.js';

const text = (result: { content?: unknown[] } | undefined) => (result?.content?.[0] as { text?: string })?.text;

/**
 * The backend's own global guards, interceptor and exception filters (the docs' HttpAdapterHost catch-all;
 * on Fastify also a `reply.status().send()` filter) around MCP tools, resources and the MCP route.
 */
describe.each(HTTP_ADAPTERS)("the app's enhancers around MCP on %s", (adapter) => {
  let backend: BackendProcess;
  let mcp: McpTestClient;
  // What the Fastify backend's HttpException filter adds to every message it writes.
  const filtered = (message: string) => (adapter === 'fastify' ? `${message} (filtered)` : message);

  beforeAll(async () => {
    backend = await BackendProcess.start({ adapter });
    mcp = createMcpTestClient(backend.origin, {
      path: '/api/mcp',
      headers: { authorization: `Bearer ${await tokenFor('ada')}` },
    });
    await mcp.listTools();
  }, 120_000);
  afterAll(() => backend?.stop());
  beforeEach(() => backend.clear());

  it("shows the client the real error of an HttpException a tool throws, through the app's filters", async () => {
    const res = await mcp.callTool('find_order', { id: 7 });
    expect(res.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: `Error: ${filtered('Order 7 not found')}` }],
    });
  });

  it("shows a tool guard's denial as the guard's message, never a TypeError", async () => {
    const res = await mcp.callTool('refund');
    expect(res.result?.isError).toBe(true);
    expect(text(res.result)).toBe(`Error: ${filtered('Forbidden')}`);
  });

  it('passes a ToolError through every filter untouched, logged at warn without a stack', async () => {
    const res = await mcp.callTool('reserve');
    expect(text(res.result)).toBe('Error: out of stock');
    const { logs } = await backend.record();
    const lines = logs.filter((line) => line.message.includes('reserve'));
    expect(lines.map((line) => line.level)).toEqual(['warn']);
    expect(lines[0].stack).toBeUndefined();
    expect(logs.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('logs an HttpException from a tool at warn without a stack', async () => {
    await mcp.callTool('find_order', { id: 8 });
    const { logs } = await backend.record();
    expect(logs.filter((line) => line.level === 'error')).toEqual([]);
    expect(logs.filter((line) => line.message.includes('find_order')).map((line) => line.level)).toEqual(['warn']);
  });

  it('keeps an unexpected error unexpected behind a catch-all filter: its own message, logged at error with its stack', async () => {
    const res = await mcp.callTool('crash');
    expect(text(res.result)).toBe('Error: db connection lost');
    const { logs } = await backend.record();
    const errors = logs.filter((line) => line.level === 'error' && line.message.startsWith('tools/call crash'));
    expect(errors).toHaveLength(1);
    expect(errors[0].stack).toContain('TypeError: db connection lost');
  });

  it('answers a NotFoundException from a resource template with resource-not-found, logged below error', async () => {
    const found = await mcp.readResource('orders://1');
    expect(found.result?.contents[0]).toMatchObject({ uri: 'orders://1' });
    const missing = await mcp.readResource('orders://99');
    expect(missing.error).toEqual({
      code: -32602,
      message: 'Resource not found: orders://99',
      data: { uri: 'orders://99' },
    });
    const closed = await mcp.readResource('shop://closed');
    expect(closed.error).toMatchObject({ code: -32602, message: `Error: ${filtered('the shop is closed')}` });
    const { logs } = await backend.record();
    expect(logs.filter((line) => line.level === 'error')).toEqual([]);
  });

  it("counts throttled tools per tool, as the throttler counts REST routes: other tools' calls leave a tool's limit alone", async () => {
    for (const tool of ['plenty', 'abundant', 'plenty']) expect(text((await mcp.callTool(tool)).result)).toBe(tool);
    expect(text((await mcp.callTool('scarce')).result)).toBe('scarce');
    expect(text((await mcp.callTool('scarce')).result)).toBe('scarce');
    const third = await mcp.callTool('scarce');
    expect(third.result?.isError).toBe(true);
    expect(text(third.result)).toContain('Too Many Requests');
  });

  it('runs the global guards and interceptor once per call, at the MCP route', async () => {
    await mcp.callTool('create_order', { customer: 'ada', item: 'lamp' });
    const record = await backend.record();
    // Reading the record is itself a request the interceptor sees.
    expect(record.intercepted.filter((name) => name !== 'RecordController.read')).toEqual(['McpController.serve']);
    expect(record.throttled).toEqual(['default']);
  });

  it("keeps the MCP route behind the app's global auth guard by default", async () => {
    const anonymous = createMcpTestClient(backend.origin, { path: '/api/mcp' });
    const res = await anonymous.post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(res.status).toBe(401);
  });
});

describe.each(HTTP_ADAPTERS)('the MCP route marked with http.routeDecorators on %s', (adapter) => {
  let backend: BackendProcess;

  beforeAll(async () => {
    backend = await BackendProcess.start({ adapter, publicRoute: true });
  }, 120_000);
  afterAll(() => backend?.stop());

  it("lets the app-wide auth guard's @Public() escape apply to the MCP route, and only to it", async () => {
    const anonymous = createMcpTestClient(backend.origin, { path: '/api/mcp' });
    const tools = await anonymous.listTools();
    expect(tools.status).toBe(200);
    expect(tools.result?.tools.map((tool) => tool.name)).toContain('create_order');
    const rest = await fetch(`${backend.origin}/api/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', age: 36 }),
    });
    expect(rest.status).toBe(401);
  });

  it("takes the MCP route out of the global ThrottlerGuard's count with SkipThrottle(), and only it", async () => {
    await backend.clear();
    const anonymous = createMcpTestClient(backend.origin, { path: '/api/mcp' });
    expect((await anonymous.discover()).status).toBe(200);
    expect((await backend.record()).throttled).toEqual([]);
    const rest = await fetch(`${backend.origin}/api/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokenFor('ada')}` },
      body: JSON.stringify({ name: 'Ada', age: 36 }),
    });
    expect(rest.status).toBe(201);
    expect((await backend.record()).throttled).toEqual(['default']);
  });
});
