import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { mcpMessage } from '../../src/testing/index.js';
import { TS_REGISTER } from '../support/backend-process.js';
import { StdioChild } from '../support/stdio-child.js';

type Message = Record<string, any>;

const MAIN = fileURLToPath(new URL('../support/stdio-context-main.ts', import.meta.url));
const JWT_SECRET = 'stdio-context-secret-of-32-bytes';
const START_MS = 120_000;

/** The backend of test/support/stdio-context-app.ts in a process of its own, driven line by line over stdio. */
const StdioBackend = {
  start: (env: Record<string, string> = {}) => StdioChild.start(MAIN, env, ['stdio']),
};

/** The same app as main.ts runs it, over HTTP, for the answers stdio must match. */
async function startHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', TS_REGISTER, MAIN, 'http'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the HTTP app exited (${code}): ${err}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/api/mcp`,
    async stop() {
      child.stdin.end();
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

const token = (sub: string) =>
  new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(JWT_SECRET));

const text = (result: Message) => result.content[0].text as string;

/**
 * What a stdio call sees of the app it joins, against a backend with nestjs-cls, an AsyncLocalStorage opened by
 * its own middleware, MikroORM on the machine's PostgreSQL with a request context per request, a strict global
 * ValidationPipe and a global prefix set in a function main.ts calls, and its own global JWT guard.
 */
describe('a stdio call inside the backend it joins', () => {
  let backend: StdioChild;

  beforeAll(async () => {
    backend = await StdioBackend.start({ STDIO_CONTEXT_TOKEN: await token('stdio-user') });
  }, START_MS + 10_000);
  afterAll(() => backend?.stop());

  it("runs inside nestjs-cls's context: the request has an id, a new one per request", async () => {
    const first = JSON.parse(text(await backend.tool('request_id'))).id;
    const second = JSON.parse(text(await backend.tool('request_id'))).id;
    expect(typeof first).toBe('string');
    expect(typeof second).toBe('string');
    expect(second).not.toBe(first);
  });

  it("runs inside the AsyncLocalStorage the app's functional and class middleware open, at the endpoint's path", async () => {
    expect(JSON.parse(text(await backend.tool('request_store')))).toEqual({
      store: { by: ['function', 'class'], url: '/api/mcp', method: 'POST' },
    });
  });

  it("uses MikroORM's entity manager in the request context the app's middleware creates", async () => {
    const note = `stdio-${process.pid}-${Date.now()}`;
    const result = await backend.tool('add_note', { text: note });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toMatchObject({ id: expect.any(Number), count: 1 });
    expect(JSON.parse(text(await backend.tool('add_note', { text: note })))).toMatchObject({ count: 2 });
  });

  it("serves a route tool behind the app's global JWT guard with the credential the stdio server sends", async () => {
    expect(JSON.parse(text(await backend.tool('profile')))).toEqual({ sub: 'stdio-user' });
  });

  describe("and the app's global ValidationPipe from main.ts, as over HTTP", () => {
    let http: { url: string; stop(): Promise<void> };
    beforeAll(async () => {
      http = await startHttp();
    }, START_MS);
    afterAll(() => http?.stop());

    it('refuses a property the DTO does not declare over both transports with the same message', async () => {
      const args = { name: 'Ada', extra: true };
      const response = await fetch(http.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${await token('http-user')}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'sign_up',
        },
        body: JSON.stringify(mcpMessage('tools/call', { name: 'sign_up', arguments: args }, { id: 1 })),
      });
      const overHttp = (await response.json()) as Message;
      expect(overHttp.result).toMatchObject({
        isError: true,
        content: [{ text: 'Error: property extra should not exist' }],
      });
      const overStdio = await backend.tool('sign_up', args);
      expect(overStdio).toMatchObject({ isError: true, content: overHttp.result.content });
      expect(JSON.parse(text(await backend.tool('sign_up', { name: 'Ada' })))).toEqual({ name: 'Ada' });
    });
  });
});

describe('a stdio server given no credential', () => {
  let backend: StdioChild;
  beforeAll(async () => {
    backend = await StdioBackend.start();
  }, START_MS + 10_000);
  afterAll(() => backend?.stop());

  it("is refused by the app's JWT guard on a route tool, as an HTTP client without a token is", async () => {
    expect(await backend.tool('profile')).toMatchObject({
      isError: true,
      content: [{ text: 'Error: Missing bearer token' }],
    });
  });
});

describe("a stdio request the app's middleware answers itself", () => {
  let backend: StdioChild;
  beforeAll(async () => {
    backend = await StdioBackend.start({ STDIO_CONTEXT_DENY: '1' });
  }, START_MS + 10_000);
  afterAll(() => backend?.stop());

  it("ends with -32000 carrying the middleware's message and status instead of a result", async () => {
    const reply = await backend.call('tools/call', { name: 'add_note', arguments: { text: 'never saved' } });
    expect(reply.error).toEqual({
      code: -32000,
      message: "The app's middleware refused the request: Denied by the gate",
      data: { status: 403 },
    });
    expect(reply.result).toBeUndefined();
  });
});
