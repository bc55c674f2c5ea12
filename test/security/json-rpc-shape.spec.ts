import 'reflect-metadata';
import request from 'supertest';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { expectRefused, expectStillServing, rawExchange, rawPost, startFixture, type Fixture } from './fixture.js';

// security.md §2.2: JSON parsing and JSON-RPC shape (rows J1-J21).
describe('security §2.2 JSON and JSON-RPC shape (J rows)', () => {
  let fx: Fixture;
  const list = mcpMessage('tools/list');
  const echo = mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } });
  /** A tools/list body with its raw id text replaced; the headers stay those of a conforming request. */
  const withId = (value: string) => JSON.stringify(list).replace('"id":1', `"id":${value}`);
  const send = (body: string, headers: Record<string, string | undefined> = {}) =>
    fx.mcp.post(body, { ...mcpHeaders(list), ...headers });

  beforeAll(async () => {
    fx = await startFixture({}, true);
  });
  afterAll(() => fx.app.close());

  it.each([
    ['J1 unparseable JSON', '{not json', -32700],
    ['J2 empty body', '', -32700],
    ['J21 a UTF-8 BOM before the object', `\uFEFF${JSON.stringify(list)}`, -32700],
    ['J3 top-level number', '1', -32600],
    ['J3 top-level string', '"abc"', -32600],
    ['J3 top-level null', 'null', -32600],
    ['J3 top-level true', 'true', -32600],
    ['J4 a batch of one valid request', JSON.stringify([list]), -32600],
    ['J5 an empty batch', '[]', -32600],
    ['J6 a posted response', '{"jsonrpc":"2.0","id":5,"result":{}}', -32600],
    ['J6 a posted error', '{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"x"}}', -32600],
    ['J8 id null', withId('null'), -32600],
    ['J9 a fractional id', withId('1.5'), -32600],
    ['J10 an object id', withId('{}'), -32600],
    ['J10 an array id', withId('[1]'), -32600],
    ['J10 a boolean id', withId('true'), -32600],
    ['J11 an id that parses to Infinity', withId(`1${'0'.repeat(400)}`), -32600],
    ['J11 an unsafe integer id', withId('9007199254740993'), -32600],
  ])('%s: 400 with id null and no dispatch', async (_row, body, code) => {
    await expectRefused(fx, () => send(body), { status: 400, code, id: null });
  });

  it.each([
    ['J7 jsonrpc missing', JSON.stringify({ ...list, jsonrpc: undefined })],
    ['J7 jsonrpc "1.0"', JSON.stringify({ ...list, jsonrpc: '1.0' })],
    ['J13 a numeric method', JSON.stringify({ ...list, method: 7 })],
    ['J15 params as an array', JSON.stringify({ ...list, params: [1, 2] })],
    ['J14 a wrong-case "Method" key', '{"jsonrpc":"2.0","id":1,"Method":"tools/list"}'],
  ])('%s: 400 -32600 echoing the readable id', async (_row, body) => {
    await expectRefused(fx, () => send(body), { status: 400, code: -32600, id: 1 });
  });

  it('J12: a string id is served and echoed', async () => {
    const res = await fx.mcp.post(mcpMessage('tools/list', {}, { id: 'abc' }));
    expect(res.status).toBe(200);
    expect(res.body.id).toBe('abc');
  });

  it('J16: a notification gets 202 with no body, is not dispatched and cancels nobody', async () => {
    const before = fx.calls();
    const abortedBefore = fx.aborted();
    // A call in flight with id 1, then a notification that tries to cancel request 1.
    // A client that gives up after 400 ms, which the kit's client does not do: supertest sends the kit's request.
    const hangCall = mcpMessage('tools/call', { name: 'hang', arguments: {} }, { id: 1 });
    const hang = request(fx.app.getHttpServer())
      .post('/mcp')
      .set(mcpHeaders(hangCall))
      .send(JSON.stringify(hangCall))
      .timeout(400);
    const pending = hang.then(
      () => undefined,
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const res = await send(
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
      { 'mcp-method': 'notifications/cancelled' },
    );
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expect(fx.aborted()).toBe(abortedBefore);
    expect(fx.calls()).toBe(before + 1);
    await pending;
    await expectStillServing(fx);
  });

  it('J17: a notification at an unsupported MCP-Protocol-Version is 400 -32022', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await expectRefused(
      fx,
      () => send(body, { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'notifications/initialized' }),
      {
        status: 400,
        code: -32022,
        id: null,
      },
    );
  });

  it('J18: duplicate "method" keys: the last wins and disagrees with Mcp-Method, so -32020', async () => {
    const body = JSON.stringify(list).replace('"method":"tools/list"', '"method":"tools/list","method":"prompts/list"');
    await expectRefused(fx, () => send(body), { status: 400, code: -32020, id: 1 });
  });

  it('J19: raw invalid UTF-8 bytes inside a string are served (decoded as U+FFFD)', async () => {
    const text = JSON.stringify(echo);
    const [head, tail] = text.split('"hi"');
    const bytes = Buffer.concat([Buffer.from(`${head}"h`), Buffer.from([0xff, 0xfe]), Buffer.from(`"${tail}`)]);
    const headers = Object.entries(mcpHeaders(echo)).map(([k, v]) => `${k}: ${v}`);
    const res = await rawExchange(fx.port, rawPost(fx.port, [...headers, `Content-Length: ${bytes.length}`], bytes));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).result.content[0].text).toBe('h\uFFFD\uFFFD');
  });

  it('J20: a lone surrogate escape is served and serialised without throwing', async () => {
    const body = JSON.stringify(echo).replace('"hi"', '"\\ud800"');
    const res = await fx.mcp.post(body, mcpHeaders(echo));
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toBe('\ud800');
  });
});
