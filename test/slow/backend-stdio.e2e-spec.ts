import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mcpMessage } from '../../src/testing/index.js';
import { BACKEND_STDIO, TS_REGISTER } from '../support/backend-process.js';

type Message = Record<string, any>;

/**
 * The backend's AppModule as it is (global passport-jwt guard, global throttler, logging interceptor, the docs'
 * HttpAdapterHost catch-all filter, a whitelisting ValidationPipe) served on stdio by a real process.
 */
describe('the realistic backend served on stdio', () => {
  let child: ChildProcessWithoutNullStreams;
  let stderr = '';
  const replies = new Map<unknown, Message>();
  let nextId = 1;
  let partial = '';

  beforeAll(async () => {
    child = spawn(process.execPath, ['--import', TS_REGISTER, BACKEND_STDIO], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line) as Message;
        if ('id' in message) replies.set(message.id, message);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    await call('server/discover', {}, 120_000);
  }, 150_000);
  afterAll(async () => {
    child.stdin.end();
    if (child.exitCode === null) await once(child, 'exit');
  });

  async function call(method: string, params: Record<string, unknown>, waitMs = 30_000): Promise<Message> {
    const id = nextId++;
    child.stdin.write(`${JSON.stringify(mcpMessage(method, params, { id }))}\n`);
    const deadline = Date.now() + waitMs;
    while (!replies.has(id)) {
      if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${stderr}`);
      if (Date.now() > deadline) throw new Error(`no reply to ${method} #${id}; stderr: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return replies.get(id)!;
  }
  const tool = async (name: string, args: Record<string, unknown> = {}) =>
    (await call('tools/call', { name, arguments: args })).result;
  const errorLines = () => stderr.split('\n').filter((line) => / ERROR /.test(line));

  it('serves tools behind the global auth guard and throttler: they guard the HTTP route, not stdio calls', async () => {
    expect(await tool('create_order', { customer: 'ada', item: 'lamp', quantity: '2' })).toMatchObject({
      content: [{ type: 'text', text: 'created' }],
    });
  });

  it("answers a tool's HttpException through the HttpAdapterHost catch-all filter with the real message", async () => {
    const result = await tool('find_order', { id: 7 });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: Order 7 not found' }] });
    expect(stderr).not.toContain('is not a function');
    expect(stderr).not.toContain('Cannot read properties');
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
