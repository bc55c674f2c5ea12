import 'reflect-metadata';
import { createMcpTestClient, type McpTestClient } from '../../src/testing/index.js';
import { BackendProcess, tokenFor } from '../support/backend-process.js';
import { HTTP_ADAPTERS } from '../support/create-app.js';

const text = (result: { content?: unknown[] } | undefined) => (result?.content?.[0] as { text?: string })?.text;

/** Each schema style keeps its own library's semantics, inside a backend with a whitelisting ValidationPipe. */
describe.each(HTTP_ADAPTERS)('schema semantics in a backend on %s', (adapter) => {
  let backend: BackendProcess;
  let mcp: McpTestClient;
  const received = async () => (await backend.record()).received;

  beforeAll(async () => {
    backend = await BackendProcess.start({ adapter });
    mcp = createMcpTestClient(backend.origin, {
      path: '/api/mcp',
      headers: { authorization: `Bearer ${await tokenFor('ada')}` },
    });
  }, 120_000);
  afterAll(() => backend?.stop());
  beforeEach(() => backend.clear());

  it('gives a @Tool handler the zod parse of its arguments: unknown keys stripped, defaults, coercion, transforms', async () => {
    const res = await mcp.callTool('create_order', {
      customer: 'ada',
      item: 'lamp',
      note: '  fragile  ',
      id: 99,
      status: 'shipped',
    });
    expect(text(res.result)).toBe('created');
    expect(await received()).toEqual([{ customer: 'ada', item: 'lamp', quantity: 1, note: 'fragile' }]);
    await mcp.callTool('create_order', { customer: 'ada', item: 'lamp', quantity: '3' });
    expect((await received())[1]).toEqual({ customer: 'ada', item: 'lamp', quantity: 3 });
  });

  it('refuses arguments the zod schema refuses, naming the argument, before the handler runs', async () => {
    const res = await mcp.callTool('create_order', { customer: 'ada', item: 'lamp', quantity: -2 });
    expect(res.result?.isError).toBe(true);
    expect(text(res.result)).toContain('"quantity"');
    expect(await received()).toEqual([]);
  });

  it('gives registerTool and addTool handlers the parsed output too', async () => {
    await mcp.callTool('rename', { sku: 'ab-1', name: 'Lamp', price: 0 });
    await mcp.callTool('restock', { sku: 'AB-1', count: '4', admin: true });
    expect(await received()).toEqual([
      { sku: 'AB-1', name: 'Lamp' },
      { sku: 'AB-1', count: 4 },
    ]);
  });

  it("sends the zod outputSchema's parse as structuredContent: fields outside the schema are not published", async () => {
    const restock = await mcp.callTool('restock', { sku: 'AB-1' });
    expect(restock.result?.structuredContent).toEqual({ sku: 'AB-1', count: 10 });
    expect(JSON.parse(text(restock.result)!)).toEqual({ sku: 'AB-1', count: 10 });
    const order = await mcp.callTool('get_order', { id: 7 });
    expect(order.result?.structuredContent).toEqual({ id: 7, status: 'paid' });
  });

  it('keeps JSON Schema semantics for a JSON Schema: additionalProperties false refuses, default is not filled in', async () => {
    const extra = await mcp.callTool('tag', { sku: 'AB-1', owner: 'x' });
    expect(extra.result?.isError).toBe(true);
    expect(text(extra.result)).toBe('Unexpected argument: owner');
    await mcp.callTool('tag', { sku: 'AB-1' });
    expect(await received()).toEqual([{ sku: 'AB-1' }]);
  });

  it("runs a DTO through the app's global ValidationPipe: forbidNonWhitelisted refuses, a valid DTO passes", async () => {
    const extra = await mcp.callTool('register_customer', { name: 'Ada', age: 36, role: 'admin' });
    expect(extra.result?.isError).toBe(true);
    // The Fastify backend's own HttpException filter writes its message, and the client reads that.
    expect(text(extra.result)).toBe(
      adapter === 'express' ? 'Error: property role should not exist' : 'Error: Bad Request Exception (filtered)',
    );
    const ok = await mcp.callTool('register_customer', { name: 'Ada', age: 36 });
    expect(text(ok.result)).toBe('registered Ada');
    expect(await received()).toEqual([{ name: 'Ada', age: 36 }]);
  });
});
