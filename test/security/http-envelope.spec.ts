import 'reflect-metadata';
import request from 'supertest';
import { gzipSync } from 'node:zlib';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import {
  chunkedPost,
  expectRefused,
  expectStillServing,
  rawExchange,
  rawPost,
  startFixture,
  type Fixture,
} from './fixture.js';

// security.md §2.1: the HTTP envelope (rows H1-H18). Every refusal is checked for status, JSON-RPC code and id,
// no dispatch (canary counter), no leaked stack or path, and a valid request succeeding right after.
const LIMIT = 64 * 1024;

describe('security §2.1 HTTP envelope (H rows)', () => {
  let fx: Fixture;
  const echo = mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } });
  const echoText = JSON.stringify(echo);
  const conforming = (overrides: Record<string, string | undefined> = {}) => ({ ...mcpHeaders(echo), ...overrides });
  // superagent would JSON-encode a Buffer sent as application/json, so compressed bodies go through node:http.
  const postBytes = async (bytes: Buffer, headers: Record<string, string>) => {
    const res = await chunkedPost(fx.port, headers, [bytes]);
    return { ...res, text: res.body, body: res.body ? JSON.parse(res.body) : undefined };
  };

  beforeAll(async () => {
    fx = await startFixture(
      {
        http: { maxBodyBytes: LIMIT, bodyTimeoutMs: 1_000 },
      },
      true,
    );
  });
  afterAll(() => fx.app.close());

  it('H1: GET /mcp is 405 with Allow: POST and a JSON-RPC body', async () => {
    const res = await request(fx.app.getHttpServer()).get('/mcp');
    expect(res.headers.allow).toBe('POST');
    await expectRefused(fx, async () => res, { status: 405, code: -32000, id: null });
  });

  it.each(['delete', 'put', 'patch'] as const)('H2: %s /mcp is 405', async (verb) => {
    await expectRefused(
      fx,
      () => request(fx.app.getHttpServer())[verb]('/mcp').set('content-type', 'application/json').send(echoText),
      {
        status: 405,
        code: -32000,
        id: null,
      },
    );
  });

  it('H3: a POST without Content-Type is 415 and never dispatched', async () => {
    const headers = Object.entries(conforming({ 'content-type': undefined }))
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}: ${v}`);
    await expectRefused(
      fx,
      () =>
        rawExchange(
          fx.port,
          rawPost(fx.port, [...headers, `Content-Length: ${Buffer.byteLength(echoText)}`], echoText),
        ),
      {
        status: 415,
        code: -32600,
        id: null,
      },
    );
  });

  it.each([
    ['H4 text/plain (the CORS simple request)', 'text/plain'],
    ['H5 a parameter smuggling application/json', 'text/plain; a=application/json'],
    ['H6 application/jsonx', 'application/jsonx'],
    ['H6 application/vnd.api+json', 'application/vnd.api+json'],
    ['H8 joined duplicate Content-Type', 'application/json, application/json'],
    ['H13 charset=iso-8859-1', 'application/json; charset=iso-8859-1'],
    ['H13 charset=utf-16', 'application/json; charset=utf-16'],
    // A parameter without a value once threw in the media-type check: no answer, and an unhandled rejection.
    ['H13 charset without a value', 'application/json; charset'],
  ])('%s is 415 and never dispatched', async (_row, contentType) => {
    await expectRefused(fx, () => fx.mcp.post(echo, { 'content-type': contentType }), {
      status: 415,
      code: -32600,
      id: null,
    });
  });

  it.each([
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json;',
    'application/json; charset="UTF-8"',
  ])('H7: %s is accepted', async (contentType) => {
    const res = await fx.mcp.post(echo, { 'content-type': contentType });
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toBe('hi');
  });

  it('H9: a body over the limit (declared length) is 413 before it is read', async () => {
    const big = JSON.stringify(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(LIMIT) } }));
    await expectRefused(fx, () => fx.mcp.post(big, conforming()), {
      status: 413,
      code: -32600,
      id: null,
    });
  });

  it('H10: a chunked body growing past the limit is cut with 413', async () => {
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    await expectRefused(
      fx,
      () =>
        chunkedPost(fx.port, conforming() as Record<string, string>, [
          Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":"'),
          ...Array(16).fill(chunk),
        ]),
      {
        status: 413,
        code: -32600,
        id: null,
      },
    );
  });

  it('H11: a gzip bomb is counted inflated: 413', async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(LIMIT);
    await expectRefused(
      fx,
      () => postBytes(bomb, conforming({ 'content-encoding': 'gzip' }) as Record<string, string>),
      { status: 413, code: -32600, id: null },
    );
  });

  it('H11: a small gzip body within the limit is served', async () => {
    const res = await postBytes(
      gzipSync(Buffer.from(echoText)),
      conforming({ 'content-encoding': 'gzip' }) as Record<string, string>,
    );
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toBe('hi');
  });

  it('H11: a corrupt gzip body is 400 -32700', async () => {
    await expectRefused(
      fx,
      () =>
        postBytes(Buffer.from('not gzip at all'), conforming({ 'content-encoding': 'gzip' }) as Record<string, string>),
      {
        status: 400,
        code: -32700,
        id: null,
      },
    );
  });

  it('H12: Content-Encoding: bogus is 415', async () => {
    await expectRefused(fx, () => fx.mcp.post(echo, { 'content-encoding': 'bogus' }), {
      status: 415,
      code: -32600,
      id: null,
    });
  });

  it("H14: a body that stalls gets 408 -32600 and its socket closed by the route's body deadline", async () => {
    const stalled = rawPost(fx.port, ['Content-Type: application/json', 'Content-Length: 100'], '{"json');
    const res = await rawExchange(fx.port, stalled, 10_000);
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toMatchObject({ id: null, error: { code: -32600 } });
    await expectStillServing(fx);
  });

  it('H15: request headers over 16 KiB get 431 from Node', async () => {
    const res = await rawExchange(
      fx.port,
      rawPost(fx.port, [`X-Big: ${'a'.repeat(17 * 1024)}`, 'Content-Length: 0'], ''),
    );
    expect(res.status).toBe(431);
    expect(fx.calls()).toBeGreaterThanOrEqual(0);
    await expectStillServing(fx);
  });

  it('H16: a bare CR inside a header value gets 400 from Node and nothing is dispatched', async () => {
    const before = fx.calls();
    const res = await rawExchange(
      fx.port,
      rawPost(
        fx.port,
        ['Content-Type: application/json', 'Mcp-Name: echo\rX-Injected: 1', `Content-Length: ${echoText.length}`],
        echoText,
      ),
    );
    expect(res.status).toBe(400);
    expect(fx.calls()).toBe(before);
    await expectStillServing(fx);
  });

  it('H17: a request without Accept, or accepting JSON only, is served JSON', async () => {
    for (const accept of [undefined, 'application/json']) {
      const res = await fx.mcp.post(echo, { accept });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('H18: error bodies are JSON-RPC, never HTML or a stack trace', async () => {
    for (const body of ['{not json', '', '[]']) {
      const res = await fx.mcp.post(body, conforming());
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.text).not.toMatch(/<html|\n\s+at\s|node_modules/i);
    }
  });

  it('the canary counts dispatches (sanity check of the no-dispatch assertions)', async () => {
    const before = fx.calls();
    expect((await fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'x' } }))).status).toBe(200);
    expect(fx.calls()).toBe(before + 1);
  });
});
