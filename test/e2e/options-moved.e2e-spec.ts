import 'reflect-metadata';
import { McpConfigurationError, McpModule } from '../../src/index.js';
import { McpKernel } from '../../src/core/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';

/**
 * Every key of the earlier flat options and where it lives now. Written out here rather than read from the
 * library, so a key the library forgets to refuse fails this suite (and the table doubles as the upgrade guide).
 */
const MOVED: Array<[old: string, place: string, value: unknown]> = [
  ['title', 'info.title', 'Weather'],
  ['description', 'info.description', 'Forecasts'],
  ['websiteUrl', 'info.websiteUrl', 'https://example.com'],
  ['icons', 'info.icons', []],
  ['callTimeoutMs', 'limits.callTimeoutMs', 1000],
  ['maxConcurrentCalls', 'limits.maxConcurrentCalls', 10],
  ['pageSize', 'limits.pageSize', 10],
  ['cache', 'lists.cache', {}],
  ['hideDeniedTools', 'hideForbidden', true],
  ['hideForbiddenPrimitives', 'hideForbidden', true],
  ['eventBus', 'listen.eventBus', {}],
  ['maxSubscriptions', 'listen.maxStreams', 10],
  ['maxSubscriptionsPerCaller', 'listen.maxStreamsPerCaller', 2],
  ['maxResourceSubscriptions', 'listen.maxResourceSubscriptions', 10],
  ['requestStateSecret', 'requestState.secret', 'a-secret-of-at-least-thirty-two-characters'],
  ['requestStateTtlMs', 'requestState.ttlMs', 1000],
  ['requestStateStore', 'requestState.store', {}],
  ['requestStateAudience', 'requestState.audience', 'https://mcp.example.com/mcp'],
  ['legacy', 'legacy.mode', 'off'],
  ['replyRouter', 'legacy.replyRouter', {}],
  ['clientReplyTimeoutMs', 'legacy.replyTimeoutMs', 1000],
  ['maxWaitingCalls', 'legacy.maxWaitingCalls', 10],
  ['maxReplyBytes', 'legacy.maxReplyBytes', 1024],
  ['maxBodyBytes', 'http.maxBodyBytes', 1024],
  ['maxResponseBytes', 'http.maxResponseBytes', 1024],
  ['sseKeepAliveMs', 'http.sseKeepAliveMs', 1000],
  ['drainTimeoutMs', 'http.drainTimeoutMs', 1000],
  ['cors', 'http.cors', true],
  ['allowedHosts', 'http.allowedHosts', ['mcp.example.com']],
  ['allowedOrigins', 'http.allowedOrigins', ['https://app.example.com']],
  ['enabled', 'http.hostOriginCheck', false],
  ['serverTimeouts', 'http.serverTimeouts', false],
  ['logFailedCalls', 'observability.logFailedCalls', false],
  ['telemetry', 'observability.telemetry', false],
  ['onCall', 'observability.onCall', () => {}],
  ['redactErrors', 'observability.redactErrors', true],
  ['onHandlerError', 'observability.onHandlerError', () => {}],
];

// The HTTP and module-side observability keys were never the kernel's.
const MODULE_ONLY = new Set([
  'hideDeniedTools',
  'maxBodyBytes',
  'maxResponseBytes',
  'sseKeepAliveMs',
  'drainTimeoutMs',
  'cors',
  'allowedHosts',
  'allowedOrigins',
  'enabled',
  'serverTimeouts',
  'logFailedCalls',
  'telemetry',
  'onCall',
]);

async function startupError(start: () => Promise<unknown>): Promise<unknown> {
  try {
    const app = (await start()) as { close(): Promise<void> };
    await app.close();
  } catch (error) {
    return error;
  }
  throw new Error('start-up succeeded');
}

/** `{ requestState: { secret: … } }` for `requestState.secret`: the fix the message shows. */
const grouped = (place: string) => place.split('.').reduceRight((inner, key) => `{ ${key}: ${inner} }`, '…');

describe('Options in the earlier flat shape fail start-up, naming where each key lives now', () => {
  it.each(MOVED)('McpModule.forRoot({ %s }) names %s', async (old, place, value) => {
    const error = await startupError(() =>
      createApp([McpModule.forRoot({ name: 'flat', version: '1.0.0', [old]: value } as never)]),
    );
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toBe(
      `McpModule options: option "${old}" is now "${place}"; write ${grouped(place)} instead`,
    );
  });

  it.each(MOVED)('a forRootAsync factory returning { %s } is refused the same way (%s)', async (old, place, value) => {
    const error = await startupError(() =>
      createApp([
        McpModule.forRootAsync({ useFactory: async () => ({ name: 'flat', version: '1.0.0', [old]: value }) as never }),
      ]),
    );
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain(`option "${old}" is now "${place}"`);
  });

  it.each(MOVED.filter(([old]) => !MODULE_ONLY.has(old)))('new McpKernel({ %s }) names %s', (old, place, value) => {
    expect(() => new McpKernel({ name: 'flat', version: '1.0.0', [old]: value } as never)).toThrow(
      new McpConfigurationError(
        `MCP server options: option "${old}" is now "${place}"; write ${grouped(place)} instead`,
      ),
    );
  });

  it('starts with the grouped shape of the same options, and serves them', async () => {
    const app = await createApp([
      McpModule.forRoot({
        name: 'grouped',
        version: '1.0.0',
        info: { title: 'Weather' },
        limits: { pageSize: 10 },
        hideForbidden: true,
        requestState: { secret: 'a-secret-of-at-least-thirty-two-characters' },
        legacy: { mode: 'off' },
        http: { cors: true, hostOriginCheck: true },
        observability: { telemetry: false },
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
