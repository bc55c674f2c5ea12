import { BACKEND_STDIO } from '../support/backend-process.js';
import { StdioChild } from '../support/stdio-child.js';

/**
 * The backend's AppModule as it is (global passport-jwt guard, global throttler, logging interceptor, the docs'
 * HttpAdapterHost catch-all filter, a whitelisting ValidationPipe) served on stdio by a real process.
 */
describe('the realistic backend served on stdio', () => {
  let app: StdioChild;

  beforeAll(async () => {
    app = await StdioChild.start(BACKEND_STDIO);
  }, 150_000);
  afterAll(() => app?.stop());

  const call = (method: string, params: Record<string, unknown>) => app.call(method, params);
  const tool = async (name: string, args: Record<string, unknown> = {}) =>
    (await call('tools/call', { name, arguments: args })).result;
  const errorLines = () => app.stderr.split('\n').filter((line) => / ERROR /.test(line));

  it('serves tools behind the global auth guard and throttler: they guard the HTTP route, not stdio calls', async () => {
    expect(await tool('create_order', { customer: 'ada', item: 'lamp', quantity: '2' })).toMatchObject({
      content: [{ type: 'text', text: 'created' }],
    });
  });

  it("answers a tool's HttpException through the HttpAdapterHost catch-all filter with the real message", async () => {
    const result = await tool('find_order', { id: 7 });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: Order 7 not found' }] });
    expect(app.stderr).not.toContain('is not a function');
    expect(app.stderr).not.toContain('Cannot read properties');
  });

  it("runs a tool's own ThrottlerGuard on the stand-in request: counted per tool, refused past its limit", async () => {
    expect(await tool('plenty')).toMatchObject({ content: [{ text: 'plenty' }] });
    expect(await tool('scarce')).toMatchObject({ content: [{ text: 'scarce' }] });
    expect(await tool('scarce')).toMatchObject({ content: [{ text: 'scarce' }] });
    const third = await tool('scarce');
    expect(third.isError).toBe(true);
    expect(third.content[0].text).toContain('Too Many Requests');
  });

  it('runs the global ValidationPipe on a DTO tool', async () => {
    const result = await tool('register_customer', { name: 'Ada', age: 36, role: 'admin' });
    expect(result).toMatchObject({ isError: true, content: [{ text: 'Error: property role should not exist' }] });
  });

  it('logs expected tool errors below ERROR: a ToolError and HttpExceptions are warnings', async () => {
    expect(await tool('reserve')).toMatchObject({ isError: true, content: [{ text: 'Error: out of stock' }] });
    await tool('refund');
    expect(errorLines()).toEqual([]);
  });

  it('reads a resource template, and answers a missing one with resource-not-found', async () => {
    const missing = await call('resources/read', { uri: 'orders://42' });
    expect(missing.error).toEqual({
      code: -32602,
      message: 'Resource not found: orders://42',
      data: { uri: 'orders://42' },
    });
    const found = await call('resources/read', { uri: 'orders://1' });
    expect(found.result.contents[0]).toMatchObject({ uri: 'orders://1' });
  });
});
