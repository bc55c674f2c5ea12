import 'reflect-metadata';
import { McpConfigurationError, McpModule } from '../../src/index.js';
import { McpKernel } from '../../src/core/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';

/**
 * A key the options do not have fails start-up with one message naming it and, when another group has it, the
 * group it belongs in. The expected places are written out here rather than read from the library, so a key the
 * library forgets, or a group it places wrongly, fails this suite.
 */
const MISPLACED: Array<[options: Record<string, unknown>, key: string, place: string | undefined]> = [
  [{ maxStreams: 10 }, 'maxStreams', 'listen.maxStreams'],
  [{ secret: 'a-secret-of-at-least-thirty-two-characters' }, 'secret', 'requestState.secret'],
  [{ callTimeoutMs: 1000 }, 'callTimeoutMs', 'limits.callTimeoutMs'],
  [{ title: 'Weather' }, 'title', 'info.title'],
  [{ redactErrors: true }, 'redactErrors', 'observability.redactErrors'],
  [{ limits: { maxStreams: 10 } }, 'limits.maxStreams', 'listen.maxStreams'],
  [{ listen: { hideForbidden: true } }, 'listen.hideForbidden', 'hideForbidden'],
  [{ maxSubscriptions: 10 }, 'maxSubscriptions', undefined],
  [{ requestStateSecret: 'a-secret-of-at-least-thirty-two-characters' }, 'requestStateSecret', undefined],
  [{ tasks: { ttl: 1000 } }, 'tasks.ttl', undefined],
];

/** Keys only `McpModule` has: its HTTP endpoint and its Nest-side observability. */
const MODULE_ONLY: Array<[options: Record<string, unknown>, key: string, place: string | undefined]> = [
  [{ cors: true }, 'cors', 'http.cors'],
  [{ hostOriginCheck: false }, 'hostOriginCheck', 'http.hostOriginCheck'],
  [{ telemetry: false }, 'telemetry', 'observability.telemetry'],
  [{ limits: { maxBodyBytes: 1024 } }, 'limits.maxBodyBytes', 'http.maxBodyBytes'],
  [{ hideDeniedTools: true }, 'hideDeniedTools', undefined],
];

const unknown = (where: string, key: string, place: string | undefined) =>
  `unknown option '${key}' in ${where}${place === undefined ? '' : `; did you mean '${place}'?`}`;

async function startupError(start: () => Promise<unknown>): Promise<unknown> {
  try {
    const app = (await start()) as { close(): Promise<void> };
    await app.close();
  } catch (error) {
    return error;
  }
  throw new Error('start-up succeeded');
}

const IDENTITY = { name: 'typo', version: '1.0.0' };

describe('An unknown option fails start-up, naming the key and the group it belongs in', () => {
  it.each([...MISPLACED, ...MODULE_ONLY])('McpModule.forRoot(%j) names %s', async (options, key, place) => {
    const error = await startupError(() => createApp([McpModule.forRoot({ ...IDENTITY, ...options } as never)]));
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toBe(unknown('McpModule options', key, place));
  });

  it.each(MISPLACED)(
    'a forRootAsync factory returning %j is refused the same way (%s)',
    async (options, key, place) => {
      const error = await startupError(() =>
        createApp([McpModule.forRootAsync({ useFactory: async () => ({ ...IDENTITY, ...options }) as never })]),
      );
      expect(error).toBeInstanceOf(McpConfigurationError);
      expect((error as Error).message).toBe(unknown('McpModule options', key, place));
    },
  );

  it.each(MISPLACED)('new McpKernel(%j) names %s', (options, key, place) => {
    expect(() => new McpKernel({ ...IDENTITY, ...options } as never)).toThrow(
      new McpConfigurationError(unknown('MCP server options', key, place)),
    );
  });

  it("refuses the module's own groups on the kernel, which has no HTTP endpoint", () => {
    expect(() => new McpKernel({ ...IDENTITY, http: { cors: true } } as never)).toThrow(
      new McpConfigurationError(unknown('MCP server options', 'http', undefined)),
    );
    expect(() => new McpKernel({ ...IDENTITY, cors: true } as never)).toThrow(
      new McpConfigurationError(unknown('MCP server options', 'cors', undefined)),
    );
  });

  it('refuses a value where a group of options belongs, listing the keys of the group', async () => {
    const error = await startupError(() => createApp([McpModule.forRoot({ ...IDENTITY, legacy: 'off' } as never)]));
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toBe(
      "option 'legacy' in McpModule options is a group of options ({ mode, sessions, replyRouter, replyTimeoutMs, " +
        'maxWaitingCalls, maxReplyBytes, maxWaitingCallsPerCaller, extensions }), got "off"',
    );
  });

  it('starts with every group in place, and serves them', async () => {
    const app = await createApp([
      McpModule.forRoot({
        name: 'grouped',
        version: '1.0.0',
        info: { title: 'Weather' },
        limits: { pageSize: 10 },
        hideForbidden: true,
        listen: { maxStreams: 10 },
        requestState: { secret: 'a-secret-of-at-least-thirty-two-characters' },
        legacy: { mode: 'off' },
        http: { cors: true, hostOriginCheck: true, maxBodyBytes: 65536 },
        observability: { telemetry: false, redactErrors: true },
        routes: { forwardHeaders: ['x-tenant-id'] },
        skills: { directoryRead: true },
        tasks: { ttlMs: 60_000 },
      }),
    ]);
    try {
      const mcp = createMcpTestClient(app);
      const { result } = await mcp.discover();
      expect((result as any)._meta['io.modelcontextprotocol/serverInfo']).toEqual({
        name: 'grouped',
        version: '1.0.0',
        title: 'Weather',
      });
      // legacy.mode 'off': a 2025-era initialize is refused.
      const legacy = await mcp.post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      });
      expect(legacy.status).toBe(400);
    } finally {
      await app.close();
    }
  });
});
