import 'reflect-metadata';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ErrorCode, MCPServer, McpModule } from '../../src/index.js';
import type { McpCallEvent } from '../../src/index.js';
import { ISSUER, RESOURCE } from '../support/auth-tokens.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

class CapturingLogger implements LoggerService {
  readonly lines: Array<{ level: string; message: string }> = [];
  log(message: string) {
    this.lines.push({ level: 'log', message });
  }
  warn(message: string) {
    this.lines.push({ level: 'warn', message });
  }
  debug(message: string) {
    this.lines.push({ level: 'debug', message });
  }
  error(message: string) {
    this.lines.push({ level: 'error', message });
  }
}

describe('401 and 503 refusals reach onCall, the failed-call logger and tracing (issue 17, operator trap)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const logger = new CapturingLogger();
  const events: McpCallEvent[] = [];
  let app: INestApplication;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          name: 'files',
          version: '1.0.0',
          observability: { onCall: (event) => events.push(event) },
          auth: {
            resource: RESOURCE,
            authorizationServers: [ISSUER],
            verify: (token: string) => {
              if (token === 'db-down') throw new Error('connection refused');
              return token === 'good' ? { sub: 'alice' } : null;
            },
          },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger });
    await app.init();
    app
      .get(MCPServer)
      .addTool({ name: 'ping', description: 'Pings', inputSchema: { type: 'object' }, handler: () => 'pong' });
    app.get(MCPServer).addTool({
      name: 'admin',
      description: 'Needs a scope nobody here has',
      inputSchema: { type: 'object' },
      requiredScopes: ['admin'],
      handler: () => 'done',
    });
  });
  afterAll(async () => {
    await app.close();
    trace.disable();
  });
  beforeEach(() => {
    events.length = 0;
    logger.lines.length = 0;
    exporter.reset();
  });

  const ping = (id: number, headers: Record<string, string> = {}) =>
    createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'ping', arguments: {} }, { id }), headers);

  it.each([
    // A client's first request normally has no token: a 401 is routine, so it is logged at debug.
    ['a request without a token', 401, {}, ErrorCode.Unauthorized, 'debug'],
    ['an invalid token', 401, { authorization: 'Bearer nope' }, ErrorCode.Unauthorized, 'debug'],
    ['a verify whose database is down', 503, { authorization: 'Bearer db-down' }, ErrorCode.InternalError, 'error'],
  ])('reports %s', async (_label, status, headers, code, level) => {
    expect((await ping(41, headers)).status).toBe(status);
    // Refused before its body is read: described by its Mcp-Method and Mcp-Name headers, with no id.
    expect(events).toEqual([
      expect.objectContaining({
        method: 'tools/call',
        name: 'ping',
        requestId: null,
        status: 'error',
        errorCode: code,
      }),
    ]);
    expect(logger.lines).toEqual([
      { level, message: expect.stringMatching(new RegExp(`^tools/call ping failed .*id=null.*${code}`)) },
    ]);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['tools/call ping']);
    expect(spans[0].attributes['error.type']).toBe(String(code));
    expect(spans[0].status.code).toBe(SpanStatusCode.ERROR);
  });

  it('logs a 403 (a scope the token lacks) at warn, unlike a 401', async () => {
    const body = mcpMessage('tools/call', { name: 'admin', arguments: {} }, { id: 43 });
    expect((await createMcpTestClient(app).post(body, { authorization: 'Bearer good' })).status).toBe(403);
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        message: expect.stringMatching(new RegExp(`^tools/call admin failed .*id=43.*${ErrorCode.InsufficientScope}`)),
      },
    ]);
  });

  it('reports an accepted call once, as before', async () => {
    expect((await ping(42, { authorization: 'Bearer good' })).status).toBe(200);
    expect(events).toEqual([expect.objectContaining({ method: 'tools/call', requestId: 42, status: 'ok' })]);
    expect(logger.lines).toEqual([]);
  });
});
