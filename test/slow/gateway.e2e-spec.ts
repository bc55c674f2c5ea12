import 'reflect-metadata';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/client';
import type { Client as ClientV1 } from 'mcp-sdk-v1/client/index.js';
import { McpConfigurationError, Tool, type McpCallEvent, type McpModuleOptions } from '../../src/index.js';
import { ISSUER, RESOURCE } from '../support/auth-tokens.js';
import type { McpModuleUpstream } from '../../src/nest/upstreams/upstream-options.interface.js';
import type { HttpAdapterName } from '../support/create-app.js';
import {
  STDIO_UPSTREAM,
  WEATHER_TOOL,
  startLibraryUpstream,
  startSdkV1Upstream,
  type RunningUpstream,
} from '../support/gateway-upstreams.js';
import { connect, startGateway as startGatewayApp, textOf, until, type Gateway } from '../support/gateway-app.js';

const CLIENT_TOKEN = 'Bearer client-secret-token';

/** Lets a call through when the caller says it is an admin: the refusing guard of these tests. */
@Injectable()
class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    return request.headers['x-role'] === 'admin';
  }
}

@Injectable()
class LocalTools {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

function startGateway(
  upstreams: McpModuleUpstream[],
  adapter: HttpAdapterName = 'express',
  providers: Function[] = [LocalTools],
  options: Partial<McpModuleOptions> = {},
): Promise<Gateway> {
  return startGatewayApp(upstreams, adapter, [...providers, AdminGuard], options);
}

describe('a gateway mounting a 2026 server of this library, an SDK 1.x server with sessions and a stdio server', () => {
  let weather: RunningUpstream;
  let legacy: Awaited<ReturnType<typeof startSdkV1Upstream>>;
  let gateway: Gateway;
  const admin = { authorization: CLIENT_TOKEN, 'x-role': 'admin' };

  beforeAll(async () => {
    [weather, legacy] = await Promise.all([startLibraryUpstream(), startSdkV1Upstream()]);
    gateway = await startGateway([
      { prefix: 'weather', url: weather.url, headers: { authorization: 'Bearer gateway-key' } },
      { prefix: 'legacy', url: legacy.url, guards: [AdminGuard] },
      { prefix: 'files', command: process.execPath, args: [STDIO_UPSTREAM] },
    ]);
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all([weather?.close(), legacy?.close()]);
  });

  it('lists every upstream tool under its prefix beside the local ones, definitions passed through', async () => {
    const client = await connect(gateway.url, '2026', admin);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'files_ask',
      'files_pid',
      'files_read_file',
      'files_slow',
      'legacy_confirm',
      'legacy_lookup',
      'legacy_summarize',
      'ping',
      'weather_big',
      'weather_forecast',
      'weather_get_weather',
      'weather_greet',
      'weather_haiku',
      'weather_monthly',
    ]);
    const mounted = tools.find((tool) => tool.name === 'weather_get_weather')!;
    const { name: _name, ...definition } = WEATHER_TOOL;
    expect(mounted).toMatchObject(definition);
    expect(tools.find((tool) => tool.name === 'legacy_lookup')?.outputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['weather_weather_report']);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual(['legacy://terms', 'weather://stations']);
    await client.close();
  });

  describe.each(['2026', '2025'] as const)('a %s-era client', (era) => {
    let client: Client;
    beforeAll(async () => {
      client = await connect(gateway.url, era, admin);
    });
    afterAll(() => client?.close());

    it('calls a tool of each upstream and gets its result', async () => {
      const sunny = await client.callTool({ name: 'weather_get_weather', arguments: { city: 'Lima' } });
      expect(textOf(sunny)).toBe('Sunny in Lima (2026-07-28)');
      const customer = await client.callTool({ name: 'legacy_lookup', arguments: { id: 7 } });
      expect(customer.structuredContent).toEqual({ name: 'customer 7' });
      const file = await client.callTool({ name: 'files_read_file', arguments: { path: 'a.txt' } });
      expect(textOf(file)).toBe('contents of a.txt');
      expect(file.isError).toBeFalsy();
    });

    it("receives a mounted tool's progress as the upstream reports it", async () => {
      const progress: unknown[] = [];
      const params = { name: 'weather_forecast', arguments: {} };
      const onprogress = (update: unknown) => void progress.push(update);
      // 1.x takes a result schema before the options.
      const result =
        era === '2026'
          ? await client.callTool(params, { onprogress })
          : await (client as unknown as ClientV1).callTool(params, undefined, { onprogress });
      expect(textOf(result)).toBe('Rain, then sun');
      expect(progress).toEqual([
        { progress: 1, total: 2, message: 'today' },
        { progress: 2, total: 2, message: 'tomorrow' },
      ]);
    });

    it('gets a mounted prompt and reads mounted resources', async () => {
      const prompt = await client.getPrompt({ name: 'weather_weather_report', arguments: { city: 'Paris' } });
      expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Write a weather report for Paris' });
      const stations = await client.readResource({ uri: 'weather://stations' });
      expect(stations.contents[0]).toMatchObject({ uri: 'weather://stations', text: 'Paris, Lima' });
      const terms = await client.readResource({ uri: 'legacy://terms' });
      expect(terms.contents[0]).toMatchObject({ text: 'The terms' });
    });
  });

  it("never hands the client's token to an upstream: each receives only its entry's headers", async () => {
    weather.headers.length = 0;
    legacy.headers.length = 0;
    const client = await connect(gateway.url, '2026', admin);
    await client.callTool({ name: 'weather_get_weather', arguments: { city: 'Lima' } });
    await client.callTool({ name: 'legacy_lookup', arguments: { id: 1 } });
    await client.close();
    expect(weather.headers.length).toBeGreaterThan(0);
    for (const headers of weather.headers) expect(headers.authorization).toBe('Bearer gateway-key');
    expect(legacy.headers.length).toBeGreaterThan(0);
    for (const headers of legacy.headers) expect(headers.authorization).toBeUndefined();
    const sent = JSON.stringify([...weather.headers, ...legacy.headers]);
    expect(sent).not.toContain('client-secret-token');
    expect(sent).not.toContain('x-role');
  });

  it("runs the entry's guards before a mounted call: a refused caller never reaches the upstream", async () => {
    const calls = legacy.calls.length;
    const guest = await connect(gateway.url, '2026', { 'x-role': 'guest' });
    const refused = await guest.callTool({ name: 'legacy_lookup', arguments: { id: 1 } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('Error: Forbidden resource');
    await expect(guest.readResource({ uri: 'legacy://terms' })).rejects.toThrow(/Forbidden resource/);
    // Another upstream's tools, without guards, still answer the same caller.
    const sunny = await guest.callTool({ name: 'weather_get_weather', arguments: { city: 'Lima' } });
    expect(textOf(sunny)).toBe('Sunny in Lima (2026-07-28)');
    await guest.close();
    expect(legacy.calls.length).toBe(calls);
  });

  it('fails only the calls of a stdio upstream killed mid-call, naming it, and serves again once restarted', async () => {
    const client = await connect(gateway.url, '2025', admin);
    const pid = Number(textOf(await client.callTool({ name: 'files_pid', arguments: {} })));
    const slow = client.callTool({ name: 'files_slow', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(pid, 'SIGKILL');
    const failed = await slow;
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/^Error: upstream "files"/);
    // The other upstreams never noticed, and the killed one's tools stay listed.
    expect(textOf(await client.callTool({ name: 'ping', arguments: {} }))).toBe('pong');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('files_pid');
    const restarted = await until(async () => {
      const result = await client.callTool({ name: 'files_pid', arguments: {} });
      return result.isError ? undefined : Number(textOf(result));
    }, 'the stdio upstream was restarted');
    expect(restarted).not.toBe(pid);
    await client.close();
  }, 40_000);
});

describe("a gateway with auth: the upstreams' scopes, hidden tools, per-caller headers and the audit", () => {
  const TOKENS: Record<string, { sub: string; scope: string }> = {
    reader: { sub: 'reader', scope: 'weather' },
    admin: { sub: 'admin', scope: 'weather admin' },
  };
  let weather: RunningUpstream;
  let legacy: Awaited<ReturnType<typeof startSdkV1Upstream>>;
  let gateway: Gateway;
  const calls: McpCallEvent[] = [];

  beforeAll(async () => {
    [weather, legacy] = await Promise.all([startLibraryUpstream(), startSdkV1Upstream()]);
    gateway = await startGateway(
      [
        {
          prefix: 'weather',
          url: weather.url,
          scopes: ['weather'],
          // The handshake and the lists are made for no caller: the gateway's own credentials.
          headers: ({ principal }) => ({
            authorization: principal ? `Bearer exchanged-for-${(principal as { sub: string }).sub}` : 'Bearer gateway',
          }),
        },
        { prefix: 'legacy', url: legacy.url, scopes: ['admin'] },
        { prefix: 'files', command: process.execPath, args: [STDIO_UPSTREAM], guards: [AdminGuard] },
      ],
      'fastify',
      [LocalTools],
      {
        hideForbidden: true,
        auth: { resource: RESOURCE, authorizationServers: [ISSUER], verify: (token: string) => TOKENS[token] },
        observability: { logFailedCalls: false, onCall: (event) => void calls.push(event) },
      },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all([weather?.close(), legacy?.close()]);
  });

  it("hides an upstream's tools from a caller without its scopes, and refuses the call", async () => {
    const reader = await connect(gateway.url, '2026', { authorization: 'Bearer reader' });
    const names = (await reader.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('weather_get_weather');
    expect(names).not.toContain('legacy_lookup');
    // Hidden, it answers as a tool that does not exist.
    const refused = await reader.callTool({ name: 'legacy_lookup', arguments: { id: 1 } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('Tool not found');
    expect(legacy.calls).toEqual([]);
    await reader.close();
    const admin = await connect(gateway.url, '2026', { authorization: 'Bearer admin' });
    expect((await admin.listTools()).tools.map((tool) => tool.name)).toContain('legacy_lookup');
    await admin.close();
  });

  it('with hideForbidden, hides an upstream from callers its guards refuse, and serves it to the others', async () => {
    const guest = await connect(gateway.url, '2025', { authorization: 'Bearer reader' });
    expect((await guest.listTools()).tools.map((tool) => tool.name)).not.toContain('files_read_file');
    await guest.close();
    const admin = await connect(gateway.url, '2025', { authorization: 'Bearer reader', 'x-role': 'admin' });
    expect((await admin.listTools()).tools.map((tool) => tool.name)).toContain('files_read_file');
    const file = await admin.callTool({ name: 'files_read_file', arguments: { path: 'b.txt' } });
    expect(textOf(file)).toBe('contents of b.txt');
    await admin.close();
  });

  it("sends the upstream the headers the entry made for the caller's principal, and audits the call", async () => {
    weather.headers.length = 0;
    calls.length = 0;
    const reader = await connect(gateway.url, '2026', { authorization: 'Bearer reader' });
    const result = await reader.callTool({ name: 'weather_get_weather', arguments: { city: 'Lima' } });
    await reader.close();
    expect(textOf(result)).toBe('Sunny in Lima (2026-07-28)');
    expect(weather.headers.map((headers) => headers.authorization)).toEqual(['Bearer exchanged-for-reader']);
    expect(calls).toContainEqual(
      expect.objectContaining({ method: 'tools/call', name: 'weather_get_weather', status: 'ok' }),
    );
  });
});

describe('a gateway keeps its lists and bounds in line with the upstream', () => {
  let weather: RunningUpstream;
  let gateway: Gateway;
  beforeAll(async () => {
    weather = await startLibraryUpstream();
    gateway = await startGateway([{ prefix: 'weather', url: weather.url, maxResponseBytes: 8_000 }]);
  });
  afterAll(async () => {
    await gateway?.close();
    await weather?.close();
  });

  it('mounts a tool the upstream registers later, when it says its list changed', async () => {
    weather.server!.registerTool('late', 'Registered at run time', { type: 'object' }, () => 'late answer');
    const client = await connect(gateway.url, '2026', {});
    await until(
      async () => {
        // The gateway's list carries a cache hint: ask past the client's cache.
        const { tools } = await client.listTools(undefined, { cacheMode: 'refresh' });
        return tools.some((tool) => tool.name === 'weather_late') ? true : undefined;
      },
      'the gateway mounted the late tool',
      10_000,
    );
    expect(textOf(await client.callTool({ name: 'weather_late', arguments: {} }))).toBe('late answer');
    await client.close();
  });

  it("asks an upstream that announces no list changes again when the entry's listTtlMs runs out", async () => {
    const legacy = await startSdkV1Upstream();
    const ttl = await startGateway([{ prefix: 'legacy', url: legacy.url, listTtlMs: 200 }]);
    const client = await connect(ttl.url, '2025', {});
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
        'ping',
        'legacy_lookup',
        'legacy_confirm',
        'legacy_summarize',
      ]);
      legacy.tools.push({ name: 'added', inputSchema: { type: 'object' } });
      await until(
        async () => {
          const { tools } = await client.listTools();
          return tools.some((tool) => tool.name === 'legacy_added') ? true : undefined;
        },
        'the gateway asked the list again',
        5_000,
      );
    } finally {
      await client.close();
      await ttl.close();
      await legacy.close();
    }
  });

  it("fails a call whose answer is over the entry's maxResponseBytes, naming the upstream", async () => {
    const client = await connect(gateway.url, '2026', {});
    const result = await client.callTool({ name: 'weather_big', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('upstream "weather" sent more than maxResponseBytes (8000 bytes)');
    await client.close();
  });
});

describe('a gateway whose HTTP upstream goes down', () => {
  it("fails that upstream's calls with an error naming it, keeps its tools listed, and serves again when it is back", async () => {
    const weather = await startLibraryUpstream();
    const gateway = await startGateway([{ prefix: 'weather', url: weather.url, timeoutMs: 2_000 }], 'fastify');
    const client = await connect(gateway.url, '2026', {});
    try {
      expect(textOf(await client.callTool({ name: 'weather_get_weather', arguments: { city: 'Lima' } }))).toBe(
        'Sunny in Lima (2026-07-28)',
      );
      await weather.close();
      const started = Date.now();
      const failed = await client.callTool({ name: 'weather_get_weather', arguments: { city: 'Lima' } });
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(/^Error: upstream "weather"/);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('weather_get_weather');
    } finally {
      await client.close();
      await gateway.close();
    }
  });
});

describe('a gateway whose upstream is slow', () => {
  it("fails the call at the entry's timeoutMs, naming the upstream, and keeps serving its other tools", async () => {
    const gateway = await startGateway([
      { prefix: 'files', command: process.execPath, args: [STDIO_UPSTREAM], timeoutMs: 500 },
    ]);
    const client = await connect(gateway.url, '2026', {});
    try {
      const started = Date.now();
      const failed = await client.callTool({ name: 'files_slow', arguments: {} });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(/^Error: upstream "files" failed: .*tim/i);
      expect(textOf(await client.callTool({ name: 'files_read_file', arguments: { path: 'c' } }))).toBe(
        'contents of c',
      );
    } finally {
      await client.close();
      await gateway.close();
    }
  });
});

describe('a gateway that cannot mount its upstreams as written fails start-up', () => {
  let weather: RunningUpstream;
  beforeAll(async () => {
    weather = await startLibraryUpstream();
  });
  afterAll(() => weather?.close());

  const failure = (upstreams: McpModuleUpstream[], providers?: Function[]) =>
    startGateway(upstreams, 'express', providers).then(
      async (gateway) => {
        await gateway.close();
        throw new Error('the gateway started');
      },
      (error: unknown) => error,
    );

  it('names a mounted tool that clashes with a local tool, and both sides', async () => {
    @Injectable()
    class Clashing {
      @Tool({ description: 'A local tool of the same name' })
      weather_get_weather() {
        return 'local';
      }
    }
    const error = await failure([{ prefix: 'weather', url: weather.url }], [Clashing]);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain(
      'tool "weather_get_weather" is offered by local tool and by upstream "weather"',
    );
  });

  it('names a resource URI two upstreams both offer, by their prefixes', async () => {
    const error = await failure([
      { prefix: 'a', url: weather.url },
      { prefix: 'b', url: weather.url },
    ]);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain(
      'resource "weather://stations" is offered by upstream "a" and by upstream "b"',
    );
  });

  it.each([
    [
      { prefix: 'a', url: 'http://127.0.0.1:1/mcp', token: 'x' },
      "unknown option 'token' in McpModule options upstreams[0]",
    ],
    [{ prefix: 'a', url: 'http://127.0.0.1:1/mcp', command: 'node' }, 'give either url (Streamable HTTP) or command'],
    [{ prefix: 'a b', url: 'http://127.0.0.1:1/mcp' }, 'prefix "a b" must be letters'],
    [{ prefix: 'a', url: 'not a url' }, 'url must be an absolute URL'],
    [{ prefix: 'a', command: 'node', headers: {} }, 'headers apply to an HTTP upstream'],
  ])('refuses an entry it cannot honour: %j', async (entry, message) => {
    const error = await failure([entry as McpModuleUpstream]);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain(message);
  });

  it("mounts names unchanged under prefix '', and refuses a second such entry", async () => {
    const gateway = await startGateway([{ prefix: '', url: weather.url }]);
    const client = await connect(gateway.url, '2026', {});
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'ping',
      'get_weather',
      'forecast',
      'greet',
      'haiku',
      'monthly',
      'big',
    ]);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['weather_report']);
    await client.close();
    await gateway.close();
    const error = await failure([
      { prefix: '', url: weather.url },
      { prefix: '', command: process.execPath, args: [STDIO_UPSTREAM] },
    ]);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain("two entries have prefix ''");
  });
});
