import { jest } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { buildStdioEntries, STDIO_ENTRIES } from '../support/stdio-build.js';
import { mcpMessage } from '../../src/testing/index.js';
import { startLibraryUpstream } from '../support/gateway-upstreams.js';

type Message = Record<string, any>;

/** A spawned stdio server and a raw newline-JSON client for it, as the spec's shutdown section describes. */
class RawStdioClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stdoutLines: string[] = [];
  stderr = '';
  private partial = '';
  private readonly waiters = new Set<() => void>();

  constructor(entry: string, env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop()!;
      this.stdoutLines.push(...parts);
      this.wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.wake();
    });
  }

  send(message: unknown): void {
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  messages(): Message[] {
    return this.stdoutLines.map((line) => JSON.parse(line) as Message);
  }

  async response(id: unknown): Promise<Message> {
    await this.until(() => this.messages().some((m) => m.id === id && ('result' in m || 'error' in m)));
    return this.messages().find((m) => m.id === id && ('result' in m || 'error' in m))!;
  }

  async until(condition: () => boolean): Promise<void> {
    while (!condition()) {
      if (this.child.exitCode !== null)
        throw new Error(`server exited (${this.child.exitCode}); stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.add(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** Resolves with the exit code and the milliseconds from `since` to the exit. */
  async exit(since: number): Promise<{ code: number | null; ms: number }> {
    if (this.child.exitCode === null) await once(this.child, 'exit');
    return { code: this.child.exitCode, ms: Date.now() - since };
  }

  private wake(): void {
    for (const waiter of this.waiters) waiter();
    this.waiters.clear();
  }
}

const clients: RawStdioClient[] = [];
function start(entry: string, env?: Record<string, string>): RawStdioClient {
  const client = new RawStdioClient(entry, env);
  clients.push(client);
  return client;
}

// Each test starts real processes on a machine other test files share.
jest.setTimeout(30_000);
beforeAll(() => buildStdioEntries(), 180_000);
afterEach(() => {
  for (const client of clients.splice(0)) if (client.child.exitCode === null) client.child.kill('SIGKILL');
});

describe('stdio server process (raw newline-delimited JSON-RPC)', () => {
  it('writes only JSON-RPC lines to stdout while the app logs through Nest Logger, console.log and process.stdout', async () => {
    const server = start(STDIO_ENTRIES.fixture);
    server.send(mcpMessage('tools/call', { name: 'noisy', arguments: {} }, { id: 1 }));
    expect(await server.response(1)).toMatchObject({ result: { content: [{ type: 'text', text: 'quiet answer' }] } });
    server.child.stdin.end();
    await server.exit(Date.now());
    expect(server.stdoutLines.length).toBeGreaterThan(0);
    for (const line of server.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(server.stderr).toContain('starting (Nest Logger)');
    expect(server.stderr).toContain('starting (console.log)');
    expect(server.stderr).toContain('starting (console.info)');
    expect(server.stderr).toContain('noisy called');
    expect(server.stderr).toContain('console.log in a tool');
    expect(server.stderr).toContain('a raw write to stdout');
  });

  it('exits 0 within a few seconds of stdin closing, after answering the call in flight and running onModuleDestroy', async () => {
    const server = start(STDIO_ENTRIES.fixture);
    server.send(mcpMessage('server/discover', {}, { id: 0 }));
    await server.response(0);
    server.send(mcpMessage('tools/call', { name: 'slow', arguments: { ms: 300 } }, { id: 'slow' }));
    const closedAt = Date.now();
    server.child.stdin.end();
    const { code, ms } = await server.exit(closedAt);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
    expect(server.messages().find((m) => m.id === 'slow')).toMatchObject({
      result: { content: [{ text: 'slept 300' }] },
    });
    expect(server.stderr).toContain('FIXTURE onModuleDestroy ran');
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on %s drains the call in flight, runs onModuleDestroy and exits 0',
    async (signal) => {
      const server = start(STDIO_ENTRIES.fixture);
      server.send(mcpMessage('server/discover', {}, { id: 0 }));
      await server.response(0);
      server.send(mcpMessage('tools/call', { name: 'slow', arguments: { ms: 300 } }, { id: 'slow' }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const signalledAt = Date.now();
      server.child.kill(signal);
      const { code, ms } = await server.exit(signalledAt);
      expect(code).toBe(0);
      expect(ms).toBeLessThan(5_000);
      expect(server.messages().find((m) => m.id === 'slow')).toMatchObject({
        result: { content: [{ text: 'slept 300' }] },
      });
      expect(server.stderr).toContain('FIXTURE onModuleDestroy ran');
    },
  );

  it('still exits, with the error on stderr, when a shutdown hook throws', async () => {
    const server = start(STDIO_ENTRIES.fixture, { FIXTURE_FAIL_SHUTDOWN: '1' });
    server.send(mcpMessage('server/discover', {}, { id: 0 }));
    await server.response(0);
    server.child.stdin.end();
    // Nest 12 logs a failing onModuleDestroy and goes on (exit 0); where app.close() rejects, the exit code is 1.
    expect([0, 1]).toContain((await server.exit(Date.now())).code);
    expect(server.stderr).toContain('Error: FIXTURE shutdown hook failed');
    expect(server.stdoutLines.every((line) => JSON.parse(line).jsonrpc === '2.0')).toBe(true);
  });

  it('shuts down cleanly when the client stops reading stdout (EPIPE)', async () => {
    const server = start(STDIO_ENTRIES.fixture);
    server.send(mcpMessage('server/discover', {}, { id: 0 }));
    await server.response(0);
    server.child.stdout.destroy();
    server.send(mcpMessage('tools/list', {}, { id: 1 }));
    expect((await server.exit(Date.now())).code).toBe(0);
    expect(server.stderr).toContain('FIXTURE onModuleDestroy ran');
  });

  it('answers bad input precisely and keeps running: not JSON, a batch, a 5 MB line, a response nobody asked for', async () => {
    const server = start(STDIO_ENTRIES.fixture);
    server.send(mcpMessage('server/discover', {}, { id: 0 }));
    await server.response(0);
    server.send('this is not json');
    server.send([mcpMessage('tools/list', {}, { id: 'in-batch' })]);
    server.send(
      `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"pad":"${'x'.repeat(5 * 1024 * 1024)}"}}`,
    );
    server.send({ jsonrpc: '2.0', id: 'srv-nobody', result: {} });
    server.send(mcpMessage('tools/call', { name: 'noisy', arguments: {} }, { id: 'after' }));
    expect(await server.response('after')).toHaveProperty('result');
    const errors = server.messages().filter((m) => 'error' in m);
    expect(errors.map((m) => [m.id, m.error.code, m.error.message.split(':')[0]])).toEqual([
      [null, -32700, 'Parse error'],
      [null, -32600, 'Invalid Request'],
      [null, -32600, 'Invalid Request'],
      [null, -32600, 'Invalid Request'],
    ]);
    expect(errors[2].error.message).toContain(`exceeds the limit of ${4 * 1024 * 1024} bytes`);
    expect(server.child.exitCode).toBeNull();
    server.child.stdin.end();
    expect((await server.exit(Date.now())).code).toBe(0);
  });

  it('fails a 2025-era call at once when its elicitation is too large to write, as HTTP does, and still asks a small one', async () => {
    const server = start(STDIO_ENTRIES.fixture);
    server.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await server.response(0);
    // Past the 4 MiB message limit: the request is never written, and the call must not wait for its reply
    // (5 minutes by default, past this test's timeout).
    server.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'confirm', arguments: { bytes: 5e6 } },
    });
    const refused = await server.response(1);
    expect(refused.result.isError).toBe(true);
    expect(refused.result.content[0].text).toContain('elicitation/create could not be sent to the client');
    expect(server.messages().some((m) => m.method === 'elicitation/create')).toBe(false);

    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'confirm', arguments: { bytes: 10 } } });
    await server.until(() => server.messages().some((m) => m.method === 'elicitation/create'));
    const asked = server.messages().find((m) => m.method === 'elicitation/create')!;
    server.send({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: {} } });
    expect((await server.response(2)).result.content[0].text).toBe('confirmed: accept');
    server.child.stdin.end();
    expect((await server.exit(Date.now())).code).toBe(0);
  });

  it('serves the conformance fixture in the 2025 era after initialize, and the basic example in the 2026 era', async () => {
    const conformance = start(STDIO_ENTRIES.conformance);
    conformance.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(await conformance.response(0)).toMatchObject({
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'nestjs-mcp-conformance' } },
    });
    conformance.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'test_simple_text', arguments: {} },
    });
    expect((await conformance.response(1)).result).toEqual({
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });

    const basic = start(STDIO_ENTRIES.basic);
    basic.send(mcpMessage('tools/call', { name: 'get_weather', arguments: { city: 'Paris' } }, { id: 'w' }));
    const weather = await basic.response('w');
    expect(weather.result.resultType).toBe('complete');
    expect(JSON.parse(weather.result.content[0].text)).toMatchObject({ city: 'Paris' });
    // A route tool over stdio: its REST route runs through the app's HTTP adapter, which never listens.
    basic.send(mcpMessage('tools/call', { name: 'get_forecast', arguments: { city: 'Paris' } }, { id: 'f' }));
    const forecast = await basic.response('f');
    expect(forecast.result.structuredContent).toEqual(JSON.parse(weather.result.content[0].text));
    expect(basic.stderr).toContain('LOG [NestFactory] Starting Nest application...');
    expect(basic.stderr).not.toContain('listening');
    for (const client of [conformance, basic]) client.child.stdin.end();
    expect((await conformance.exit(Date.now())).code).toBe(0);
    expect((await basic.exit(Date.now())).code).toBe(0);
  });
});

describe('stdio server process of an app with two MCP servers (bootstrapStdio server option)', () => {
  async function toolNames(server: RawStdioClient): Promise<string[]> {
    server.send(mcpMessage('tools/list', {}, { id: 'list' }));
    const { result } = await server.response('list');
    return (result.tools as Array<{ name: string }>).map((tool) => tool.name);
  }

  it('serves the default server without the option, although the named one is imported first', async () => {
    const server = start(STDIO_ENTRIES.twoServers);
    expect(await toolNames(server)).toEqual(['invoice']);
    server.child.stdin.end();
    expect((await server.exit(Date.now())).code).toBe(0);
  });

  it('serves the server the option names: its tools, prompts and serverInfo', async () => {
    const server = start(STDIO_ENTRIES.twoServers, { STDIO_SERVER: 'support' });
    expect(await toolNames(server)).toEqual(['ticket']);
    server.send(mcpMessage('prompts/list', {}, { id: 'prompts' }));
    expect((await server.response('prompts')).result.prompts).toMatchObject([{ name: 'triage' }]);
    server.send(mcpMessage('server/discover', {}, { id: 'discover' }));
    expect((await server.response('discover')).result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'support',
    });
    server.child.stdin.end();
    expect((await server.exit(Date.now())).code).toBe(0);
  });

  it('fails start-up with McpConfigurationError naming the servers when the name is unknown, writing nothing to stdout', async () => {
    const server = start(STDIO_ENTRIES.twoServers, { STDIO_SERVER: 'shipping' });
    expect((await server.exit(Date.now())).code).toBe(1);
    expect(server.stderr).toContain(
      'McpConfigurationError: bootstrapStdio: the app has no MCP server named "shipping" (its servers: "support", "billing")',
    );
    expect(server.stdoutLines).toEqual([]);
  });
});

describe('stdio server process of an app mounting an upstream (upstreams)', () => {
  it('lists the mounted tool under its prefix and calls it through to the upstream', async () => {
    const upstream = await startLibraryUpstream();
    try {
      const server = start(STDIO_ENTRIES.gateway, { UPSTREAM_URL: upstream.url });
      server.send(mcpMessage('tools/list', {}, { id: 'list' }));
      const { result } = await server.response('list');
      expect((result.tools as Array<{ name: string }>).map((tool) => tool.name)).toContain('weather_get_weather');
      server.send(
        mcpMessage('tools/call', { name: 'weather_get_weather', arguments: { city: 'Lima' } }, { id: 'call' }),
      );
      expect((await server.response('call')).result.content).toEqual([
        { type: 'text', text: 'Sunny in Lima (2026-07-28)' },
      ]);
      server.child.stdin.end();
      expect((await server.exit(Date.now())).code).toBe(0);
    } finally {
      await upstream.close();
    }
  });
});
