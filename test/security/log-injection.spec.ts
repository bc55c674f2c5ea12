import 'reflect-metadata';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MCPServer, McpModule } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

/** Every line the app's logger was handed, message and stack alike. */
class CapturingLogger implements LoggerService {
  readonly written: string[] = [];
  log(message: string) {
    this.written.push(message);
  }
  warn(message: string) {
    this.written.push(message);
  }
  error(message: string, ...params: Array<string | undefined>) {
    this.written.push(message, ...params.filter((p): p is string => typeof p === 'string'));
  }
}

// What a forged line needs: a line break, then text that looks like Nest's own log prefix, in red.
const FORGED = 'echo\n[Nest] 1  - 12/01/2026, 9:00:00 AM   ERROR [Auth] \u001b[31madmin logged in\u001b[0m\r\u2028';
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Log injection (security round 2, finding 6): a tool name, a request id or a handler message with raw newlines,
 * carriage returns and ANSI escapes reaches the failed-call lines escaped, never raw.
 */
describe('security round 2: request-derived values are escaped in log lines', () => {
  let app: INestApplication;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'logs', version: '1.0.0', observability: { redactErrors: false } })],
    }).compile();
    app = moduleRef.createNestApplication({ logger });
    await app.init();
    app.get(MCPServer).addTool({
      name: 'explode',
      description: 'Throws an error quoting its argument',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: (args: { text: string }) => {
        throw new Error(`could not handle ${args.text}`);
      },
    });
  });
  afterAll(() => app.close());

  const linesAbout = (marker: string) => logger.written.filter((line) => line.includes(marker));

  it('escapes a tool name and a request id that carry line breaks and ANSI escapes', async () => {
    const body = { ...mcpMessage('tools/call', { name: FORGED, arguments: {} }), id: `id-1\n${FORGED}` };
    const res = await createMcpTestClient(app).post(body);
    expect(res.body.result).toMatchObject({ isError: true });
    const lines = linesAbout('admin logged in');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toMatch(RAW_CONTROL);
    expect(lines.join('')).toContain('echo\\n[Nest] 1');
    expect(lines.join('')).toContain('\\u001b[31m');
  });

  it('escapes a handler error message quoting the request, in the line and in the stack', async () => {
    const res = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'explode', arguments: { text: `${FORGED} (explode)` } }),
    );
    expect(res.body.result.isError).toBe(true);
    const lines = linesAbout('(explode)');
    expect(lines.length).toBeGreaterThan(0);
    // A stack keeps its own line breaks; what came from the request does not add any.
    for (const line of lines) for (const part of line.split('\n    at ')) expect(part).not.toMatch(RAW_CONTROL);
  });
});
