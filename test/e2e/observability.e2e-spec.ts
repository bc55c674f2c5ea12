import 'reflect-metadata';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MCPServer, McpModule, type McpModuleOptions } from '../../src/index.js';
import type { McpCallEvent } from '../../src/index.js';
import { createMcpTestClient, type McpTestClient } from '../../src/testing/index.js';
import { registerFeatures } from '../support/feature-server.js';

class CapturingLogger implements LoggerService {
  readonly lines: Array<{ level: string; message: string; context?: string }> = [];
  log(message: string, context?: string) {
    this.lines.push({ level: 'log', message, context });
  }
  warn(message: string, context?: string) {
    this.lines.push({ level: 'warn', message, context });
  }
  // Nest's Logger calls error(message, stack, context).
  error(message: string, ...params: Array<string | undefined>) {
    this.lines.push({ level: 'error', message, context: params.at(-1) });
  }
}

async function boot(
  options: Partial<McpModuleOptions>,
  logger: LoggerService | false = false,
): Promise<{ app: INestApplication; mcp: McpTestClient }> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      McpModule.forRoot({
        name: 'observed',
        version: '1.0.0',
        requestState: { secret: 'observability-test-secret-0123456789abcdef' },
        ...options,
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger });
  await app.init();
  const server = app.get(MCPServer);
  registerFeatures(server);
  server.addPrompt({
    name: 'broken',
    handler: () => {
      throw new Error('database is down');
    },
  });
  server.registerTool('traced', 'Makes its own span', { type: 'object', properties: {} }, () =>
    trace.getTracer('user-code').startActiveSpan('db.query', (span) => {
      span.end();
      return 'ok';
    }),
  );
  return { app, mcp: createMcpTestClient(app) };
}

describe('Observability: a redacted handler error and its log line share one reference', () => {
  const logger = new CapturingLogger();
  let app: INestApplication;
  let mcp: McpTestClient;
  beforeAll(async () => ({ app, mcp } = await boot({ observability: { redactErrors: true } }, logger)));
  afterAll(() => app.close());

  it('gives the client a reference that finds the one server-side line with the real message', async () => {
    const { result } = await mcp.callTool('explode');
    const text = (result?.content[0] as { text: string }).text;
    const reference = /^Error: Internal error \(reference ([0-9a-f-]{36})\)$/.exec(text)?.[1];
    expect(reference).toBeDefined();
    expect(text).not.toContain('kaboom');
    const lines = logger.lines.filter((l) => l.context === 'MCPServer' && l.message.includes(reference!));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', message: expect.stringContaining('(cause: kaboom)') });
  });
});

describe('Observability: Nest Logger line per failed call', () => {
  const logger = new CapturingLogger();
  let app: INestApplication;
  let mcp: McpTestClient;
  beforeAll(async () => ({ app, mcp } = await boot({}, logger)));
  afterAll(() => app.close());

  const mcpLines = () => logger.lines.filter((l) => l.context === 'MCPServer' && l.message.includes('failed'));

  it('logs nothing for a successful call', async () => {
    const before = mcpLines().length;
    await mcp.callTool('add', { a: 1, b: 2 });
    expect(mcpLines().length).toBe(before);
  });

  it('logs one line with a correlation id for a failed tool and for a JSON-RPC error', async () => {
    const before = mcpLines().length;
    await mcp.callTool('explode');
    await mcp.getPrompt('greet', {});
    const lines = mcpLines().slice(before);
    expect(lines).toHaveLength(2);
    // A tool that threw an unexpected error: error level, with the cause the client may not see.
    expect(lines[0].level).toBe('error');
    expect(lines[0].message).toMatch(
      /^tools\/call explode failed \[correlationId=[0-9a-f-]{36}, id=\d+\]: tool_error Error: kaboom \(cause: kaboom\)$/,
    );
    expect(lines[1].level).toBe('warn');
    expect(lines[1].message).toMatch(
      /^prompts\/get greet failed \[correlationId=[0-9a-f-]{36}, id=\d+\]: -32602 Missing required argument: who$/,
    );
    expect(lines.every((l) => !l.message.includes('\n'))).toBe(true);
  });

  it('logs an internal error at error level and hands its correlation id to the client', async () => {
    const before = mcpLines().length;
    const { error } = await mcp.getPrompt('broken');
    expect(error?.code).toBe(-32603);
    const lines = mcpLines().slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe('error');
    const correlationId = (error?.data as { correlationId: string }).correlationId;
    expect(lines[0].message).toContain(`[correlationId=${correlationId},`);
    expect(lines[0].message).toContain('database is down');
  });
});

describe('Observability: nothing on stdout or stderr beyond the Nest logger', () => {
  it('writes nothing itself when the app logger is off, for successful and failed calls', async () => {
    const { app, mcp } = await boot({}, false);
    const writes: string[] = [];
    const out = jest
      .spyOn(process.stdout, 'write')
      .mockImplementation((chunk: string | Uint8Array) => (writes.push(String(chunk)), true));
    const err = jest
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk: string | Uint8Array) => (writes.push(String(chunk)), true));
    try {
      await mcp.callTool('add', { a: 1, b: 2 });
      await mcp.callTool('explode');
      await mcp.getPrompt('broken');
      await mcp.request('nope/nothing');
    } finally {
      out.mockRestore();
      err.mockRestore();
      await app.close();
    }
    expect(writes).toEqual([]);
  });
});

describe('Observability: onCall metrics hook', () => {
  const events: McpCallEvent[] = [];
  let app: INestApplication;
  let mcp: McpTestClient;
  beforeAll(
    async () =>
      ({ app, mcp } = await boot({ observability: { onCall: (e) => events.push(e), logFailedCalls: false } })),
  );
  afterAll(() => app.close());

  it('reports method, tool, outcome and duration of every call', async () => {
    await mcp.callTool('add', { a: 1, b: 2 });
    await mcp.callTool('explode');
    await mcp.callTool('book');
    await mcp.getPrompt('nope');
    const tail = events.slice(-4);
    expect(tail.map((e) => [e.method, e.name, e.status, e.errorType])).toEqual([
      ['tools/call', 'add', 'ok', undefined],
      ['tools/call', 'explode', 'tool_error', 'tool_error'],
      ['tools/call', 'book', 'input_required', undefined],
      ['prompts/get', 'nope', 'error', '-32602'],
    ]);
    expect(tail.every((e) => typeof e.durationMs === 'number' && e.durationMs >= 0)).toBe(true);
  });
});

describe('Observability: OpenTelemetry spans (MCP semantic conventions)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
    ({ app, mcp } = await boot({ observability: { logFailedCalls: false } }));
  });
  afterAll(async () => {
    await app.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parentSpanId = '00f067aa0ba902b7';

  it('makes a SERVER span named after method and tool, continuing _meta.traceparent', async () => {
    await mcp.callTool('add', { a: 1, b: 2 }, { meta: { traceparent: `00-${traceId}-${parentSpanId}-01` } });
    const spans = exporter.getFinishedSpans().filter((s) => s.attributes['mcp.method.name'] === 'tools/call');
    expect(spans.map((s) => s.name)).toEqual(['tools/call add']);
    const [span] = spans;
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe(parentSpanId);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
    expect(typeof span.attributes['jsonrpc.request.id']).toBe('string');
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('marks tool errors and JSON-RPC errors with error.type and ERROR status', async () => {
    await mcp.callTool('explode');
    await mcp.getPrompt('nope');
    const [tool, prompt] = exporter.getFinishedSpans();
    expect(tool.attributes['error.type']).toBe('tool_error');
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Error: kaboom' });
    expect(prompt.name).toBe('prompts/get nope');
    expect(prompt.attributes).toMatchObject({
      'gen_ai.prompt.name': 'nope',
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    });
    expect(prompt.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('names resource spans by method only and records the URI as an attribute', async () => {
    await mcp.readResource('memo://greeting');
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('resources/read');
    expect(span.attributes['mcp.resource.uri']).toBe('memo://greeting');
  });

  it("keeps the span active while the handler runs, so the handler's spans nest under it", async () => {
    await mcp.callTool('traced');
    const spans = exporter.getFinishedSpans();
    const inner = spans.find((s) => s.name === 'db.query');
    const outer = spans.find((s) => s.name === 'tools/call traced');
    expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
  });

  it('makes no spans when telemetry is turned off', async () => {
    const off = await boot({ observability: { telemetry: false, logFailedCalls: false } });
    await off.mcp.callTool('add', { a: 1, b: 2 });
    await off.app.close();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});

describe('Observability: an interceptor that throws', () => {
  const logger = new CapturingLogger();
  let app: INestApplication;
  let mcp: McpTestClient;
  beforeAll(async () => {
    ({ app, mcp } = await boot({ observability: { telemetry: false } }, logger));
    // Outermost, so it throws after the failed-call logger has seen a successful call.
    app.get(MCPServer).intercept(async (_call, next) => {
      await next();
      throw new Error('metrics exporter down');
    });
  });
  afterAll(() => app.close());

  it('answers the client with a JSON-RPC error and logs the exception through Nest', async () => {
    const exchange = await mcp.callTool('add', { a: 1, b: 2 });
    expect(exchange.status).toBe(200);
    expect(exchange.error).toEqual({ code: -32603, message: 'Internal error' });
    // The client's own tools/list (for the tool's parameter headers) failed the same way; the call is the last line.
    const lines = logger.lines.filter(
      (l) => l.level === 'error' && l.context === 'MCPServer' && l.message.startsWith('tools/call'),
    );
    expect(lines).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^tools\/call "add" failed \(reference [0-9a-f-]{36}\): metrics exporter down$/),
      }),
    ]);
  });
});
