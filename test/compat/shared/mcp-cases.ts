// The MCP cases both compat apps run with their own generated test runner (jest + ts-jest CommonJS on Nest 11,
// vitest on Nest 12): run.sh copies this file into each app's test/ folder. It has no relative import, so the
// same source compiles in both module systems; each app's spec hands in its own AppModule.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ConsoleLogger, type INestApplication, type Type } from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { McpModule } from 'nestjs-mcp';
import { createMcpTestClient, mcpMessage } from 'nestjs-mcp/testing';
import request from 'supertest';
import { execFileSync } from 'node:child_process';
import type { Server } from 'node:http';
import { join } from 'node:path';
import * as vm from 'node:vm';

export interface McpCaseOptions {
  /** jest's CommonJS runtime imports ESM (jose) only with NODE_OPTIONS=--experimental-vm-modules. */
  runner: 'jest-cjs' | 'vitest';
}

const PROTOCOL_VERSION = '2026-07-28';
// Per test, passed to it() since the generated runner configs stay as they are: a shared CI machine can be slow.
const TIMEOUT = 30_000;

/** Remembers warnings, so a test can count the start-up warning. */
class RecordingLogger extends ConsoleLogger {
  readonly warnings: string[] = [];
  override warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  override log(): void {}
}

const adapters: Array<[string, () => AbstractHttpAdapter]> = [
  ['Express', () => new ExpressAdapter()],
  ['Fastify', () => new FastifyAdapter()],
];

async function createApp(
  imports: Array<Type | ReturnType<typeof McpModule.forRoot>>,
  adapter: AbstractHttpAdapter,
  logger = new RecordingLogger(),
) {
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  const app = moduleRef.createNestApplication(adapter, { logger });
  return { app, logger };
}

function discover(server: Server, host: string) {
  return createMcpTestClient(server).post(mcpMessage('server/discover'), { host });
}

export function defineMcpCases(AppModule: Type, { runner }: McpCaseOptions): void {
  describe.each(adapters)('nestjs-mcp on %s', (_name, makeAdapter) => {
    let app: INestApplication;
    afterEach(async () => {
      await app?.close();
    });

    it(
      'the testing kit calls a tool on an app that was only init()ed',
      async () => {
        ({ app } = await createApp([AppModule], makeAdapter()));
        await app.init();
        const mcp = createMcpTestClient(app);
        const tools = await mcp.listTools();
        expect(tools.result?.tools.map((t) => t.name)).toEqual(['echo', 'hello', 'convert']);
        const echo = await mcp.callTool(
          'echo',
          { text: 'hi' },
          { meta: { 'io.modelcontextprotocol/logLevel': 'info' } },
        );
        expect(echo.status).toBe(200);
        expect(echo.result?.content).toEqual([{ type: 'text', text: 'hi' }]);
        expect(echo.notifications.map((n) => n.params?.data)).toEqual(['echo hi']);
        const hello = await mcp.callTool('hello');
        expect(hello.result?.content).toEqual([{ type: 'text', text: 'Hello World!' }]);
      },
      TIMEOUT,
    );

    it(
      'the testing kit names the path and status when the endpoint is not there',
      async () => {
        ({ app } = await createApp([AppModule], makeAdapter()));
        await app.init();
        await expect(createMcpTestClient(app, { path: '/api/mcp' }).discover()).rejects.toThrow(/\/api\/mcp.*404/);
      },
      TIMEOUT,
    );

    it(
      'an app listening on every interface starts, keeps its REST routes, serves loopback and refuses a foreign Host',
      async () => {
        let logger: RecordingLogger;
        ({ app, logger } = await createApp([AppModule], makeAdapter()));
        await app.listen(0);
        const server = app.getHttpServer();
        await request(server).get('/').expect(200, 'Hello World!');
        const local = await discover(server, 'localhost');
        expect(local.status).toBe(200);
        expect(local.body.result.supportedVersions).toEqual([PROTOCOL_VERSION]);
        const foreign = await discover(server, 'evil.example');
        expect(foreign.status).toBe(403);
        expect(foreign.body.error.message).toMatch(/allowedHosts/);
        expect(logger.warnings.filter((w) => w.includes('allowedHosts'))).toHaveLength(1);
      },
      TIMEOUT,
    );

    it(
      'a 2025-era client: initialize, then tools/call, with no session',
      async () => {
        ({ app } = await createApp([AppModule], makeAdapter()));
        // Listening makes Fastify ready; supertest on the raw server of an init()-only Fastify app would hang.
        await app.listen(0, '127.0.0.1');
        const legacy = (body: object) =>
          request(app.getHttpServer())
            .post('/mcp')
            .set('content-type', 'application/json')
            .set('accept', 'application/json, text/event-stream')
            .send(body);
        const clientInfo = { name: 'compat', version: '1' };
        const init = await legacy({
          jsonrpc: '2.0',
          id: 4,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
        });
        expect(init.status).toBe(200);
        expect(init.body.result.protocolVersion).toBe('2025-06-18');
        expect(init.headers['mcp-session-id']).toBeUndefined();
        const call = await legacy({
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'hello', arguments: {} },
        });
        // hello logs nothing, so the answer stays JSON (a 2025-era log would turn it into an SSE stream).
        expect(call.body.result).toEqual({ content: [{ type: 'text', text: 'Hello World!' }] });
      },
      TIMEOUT,
    );

    it(
      runner === 'jest-cjs' && !vmModules()
        ? 'auth.jwt fails start-up saying how to load jose'
        : 'auth.jwt loads jose and asks for a token',
      async () => {
        const auth = {
          resource: 'http://localhost/mcp',
          authorizationServers: ['https://auth.example.com'],
          jwt: { issuer: 'https://auth.example.com', jwks: { keys: [] } },
        };
        const imports = [McpModule.forRoot({ name: 'jwt', version: '1.0.0', auth })];
        if (runner === 'jest-cjs' && !vmModules()) {
          await expect(Test.createTestingModule({ imports }).compile()).rejects.toThrow(
            /NODE_OPTIONS=--experimental-vm-modules/,
          );
          return;
        }
        ({ app } = await createApp(imports, makeAdapter()));
        await app.init();
        const { status, error } = await createMcpTestClient(app).discover();
        expect(status).toBe(401);
        expect(error?.message).toMatch(/Bearer access token/);
      },
      TIMEOUT,
    );
  });
}

/**
 * `convert` is a plain typed method with JSDoc and no schema: nestjs-mcp/plugin derived what it publishes (through
 * ts-jest's AST transformer on Nest 11, through the generated metadata file under vitest on Nest 12, and in
 * `nest build` for the stdio case).
 */
const CONVERT = {
  name: 'convert',
  description: 'Converts a temperature to another scale.',
  inputSchema: {
    type: 'object',
    properties: {
      value: { type: 'number', description: 'the temperature to convert' },
      to: {
        type: 'string',
        enum: ['celsius', 'fahrenheit'],
        description: 'the scale to convert it to',
        default: 'fahrenheit',
      },
    },
    required: ['value'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      value: { type: 'number', description: 'The converted temperature' },
      scale: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['value', 'scale'],
  },
};
// The derived schema is checked as a written one is: a wrong argument type is a tool error naming the argument.
const WRONG_VALUE = [{ type: 'text', text: 'Invalid argument "value": must be number (type)' }];

export function definePluginCase(AppModule: Type): void {
  it(
    'a tool with no schema written lists the schema the plugin derived from its types, and refuses a wrong type',
    async () => {
      const { app } = await createApp([AppModule], new ExpressAdapter());
      await app.init();
      try {
        const mcp = createMcpTestClient(app);
        const tools = await mcp.listTools();
        expect(tools.result?.tools.find((tool) => tool.name === 'convert')).toEqual(CONVERT);
        const wrong = await mcp.callTool('convert', { value: 'hot' });
        expect(wrong.status).toBe(200);
        expect(wrong.result?.isError).toBe(true);
        expect(wrong.result?.content).toEqual(WRONG_VALUE);
        const right = await mcp.callTool('convert', { value: 100 });
        expect(right.result?.structuredContent).toEqual({ value: 212, scale: 'fahrenheit' });
      } finally {
        await app.close();
      }
    },
    TIMEOUT,
  );
}

/**
 * The app's own stdio entry (src/stdio.ts: `bootstrapStdio(AppModule)` from the installed package), built by
 * `nest build` (tsc, with nestjs-mcp/plugin from nest-cli.json) and launched by the official MCP client the way a desktop client
 * does. Run from the app's folder, as its test scripts are.
 */
export function defineStdioCase(): void {
  describe('nestjs-mcp over stdio', () => {
    beforeAll(() => {
      execFileSync(process.execPath, [join('node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build'], {
        stdio: 'inherit',
      });
    }, 120_000);

    it(
      "an MCP client launches the app's stdio entry, lists its tools and calls them over the pipe",
      async () => {
        const client = new Client(
          { name: 'compat-stdio', version: '1.0.0' },
          { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } },
        );
        // stderr passes through: Nest's start-up log lands there, and a failing start-up shows why.
        await client.connect(
          new StdioClientTransport({ command: process.execPath, args: [join('dist', 'stdio.js')], stderr: 'inherit' }),
        );
        try {
          expect(client.getNegotiatedProtocolVersion()).toBe(PROTOCOL_VERSION);
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name)).toEqual(['echo', 'hello', 'convert']);
          const echo = await client.callTool({ name: 'echo', arguments: { text: 'over the pipe' } });
          expect(echo.content).toEqual([{ type: 'text', text: 'over the pipe' }]);
          const hello = await client.callTool({ name: 'hello', arguments: {} });
          expect(hello.content).toEqual([{ type: 'text', text: 'Hello World!' }]);
          expect(tools.find((tool) => tool.name === 'convert')).toEqual(CONVERT);
          const wrong = await client.callTool({ name: 'convert', arguments: { value: 'hot' } });
          expect(wrong.isError).toBe(true);
          expect(wrong.content).toEqual(WRONG_VALUE);
        } finally {
          await client.close();
        }
      },
      TIMEOUT,
    );
  });
}

/** Whether this process runs with --experimental-vm-modules (then jest's CommonJS runtime can import ESM). */
function vmModules(): boolean {
  return typeof (vm as { SourceTextModule?: unknown }).SourceTextModule === 'function';
}
