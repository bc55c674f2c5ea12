import 'reflect-metadata';
import { LATEST_PROTOCOL_VERSION } from '../../src/protocol/versions.js';
import { mcpHeaders, mcpMessage, sseMessages } from '../../src/testing/index.js';
import { expectRefused, expectStillServing, rawExchange, rawPost, startFixture, type Fixture } from './fixture.js';

// security.md §2.3: the 2026-07-28 envelope and the mirrored headers (rows M1-M27).
describe('security §2.3 MCP envelope and mirrored headers (M rows)', () => {
  let fx: Fixture;
  const echo = mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } });
  const b64 = (s: string) => `=?base64?${Buffer.from(s).toString('base64')}?=`;
  /** A tools/call body whose `_meta` is replaced. */
  const withMeta = (meta: Record<string, unknown> | undefined) => ({
    ...echo,
    params: { ...(echo.params as object), _meta: meta },
  });
  const META = (echo.params as { _meta: Record<string, unknown> })._meta;

  beforeAll(async () => {
    fx = await startFixture({ lists: { cache: { lists: { cacheScope: 'private', ttlMs: 0 } } } }, true);
    fx.server.registerTool(
      'region',
      'A tool with an x-mcp-header parameter',
      {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          n: { type: 'integer', 'x-mcp-header': 'N' },
        },
      },
      () => 'ok',
    );
    fx.server.addTool({
      name: 'needsSampling',
      description: 'Needs the sampling capability',
      inputSchema: { type: 'object' },
      requiredCapabilities: { sampling: {} },
      handler: () => 'sampled',
    });
    fx.server.registerTool('chatty', 'Logs at info', { type: 'object' }, (_a, _i, ctx) => {
      ctx.log('info', 'a log line');
      return 'done';
    });
    fx.server.addResource({ uri: 'mem://known', name: 'known', handler: () => 'known' });
  });
  afterAll(() => fx.app.close());

  it('M1: no params._meta is 400 -32602 naming the key', async () => {
    await expectRefused(fx, () => fx.mcp.post(withMeta(undefined)), {
      status: 400,
      code: -32602,
      id: 1,
    });
  });

  it.each([
    ['M2 without clientCapabilities', { 'io.modelcontextprotocol/protocolVersion': LATEST_PROTOCOL_VERSION }],
    ['M2 without protocolVersion', { 'io.modelcontextprotocol/clientCapabilities': {} }],
    ['M4 a numeric protocolVersion', { ...META, 'io.modelcontextprotocol/protocolVersion': 42 }],
  ])('%s: 400 -32602', async (_row, meta) => {
    await expectRefused(fx, () => fx.mcp.post(withMeta(meta), mcpHeaders(echo)), {
      status: 400,
      code: -32602,
      id: 1,
    });
  });

  it('M3: _meta without clientInfo is served', async () => {
    const { 'io.modelcontextprotocol/clientInfo': _info, ...meta } = META;
    expect((await fx.mcp.post(withMeta(meta))).status).toBe(200);
  });

  it('M5: 2099-01-01 in body and header is 400 -32022 with supported and requested', async () => {
    const body = withMeta({ ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
    const res = await fx.mcp.post(body, { 'mcp-protocol-version': '2099-01-01' });
    expect(res.body.error.data).toEqual({ supported: [LATEST_PROTOCOL_VERSION], requested: '2099-01-01' });
    await expectRefused(fx, async () => res, { status: 400, code: -32022, id: 1 });
  });

  it.each([
    ['M6 header 2025-06-18 against a 2026-07-28 body', { 'mcp-protocol-version': '2025-06-18' }],
    ['M7 no MCP-Protocol-Version header', { 'mcp-protocol-version': undefined }],
    ['M8 no Mcp-Method header', { 'mcp-method': undefined }],
    ['M9 Mcp-Method disagreeing with the body', { 'mcp-method': 'prompts/list' }],
    ['M10 Mcp-Method in another case', { 'mcp-method': 'TOOLS/CALL' }],
    ['M12 no Mcp-Name on tools/call', { 'mcp-name': undefined }],
    ['M13 Mcp-Name naming another tool', { 'mcp-name': 'wrong_tool_name' }],
    ['M16 base64 with bad padding', { 'mcp-name': '=?base64?SGVsbG8?=' }],
    ['M16 base64 with bad characters', { 'mcp-name': '=?base64?SGVs!!!bG8=?=' }],
    ['M17 a base64 prefix without the suffix is a literal (so it mismatches)', { 'mcp-name': '=?base64?ZWNobw==' }],
    ['M17 a base64 suffix without the prefix is a literal (so it mismatches)', { 'mcp-name': 'ZWNobw==?=' }],
  ])('%s: 400 -32020', async (_row, headers) => {
    await expectRefused(fx, () => fx.mcp.post(echo, headers), {
      status: 400,
      code: -32020,
      id: 1,
    });
  });

  it.each([
    ['M11 lower-case header names', { 'mcp-method': 'tools/call', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }],
    ['M11 upper-case header names', { 'MCP-METHOD': 'tools/call', 'MCP-PROTOCOL-VERSION': LATEST_PROTOCOL_VERSION }],
    ['M14 Mcp-Name with optional whitespace', { 'mcp-name': '  echo  ' }],
    ['M15 Mcp-Name in the base64 sentinel', { 'mcp-name': b64('echo') }],
    ['M20 Mcp-Session-Id and Last-Event-ID (ignored)', { 'mcp-session-id': 'abc', 'last-event-id': '7' }],
  ])('%s: served', async (_row, headers) => {
    const res = await fx.mcp.post(echo, headers);
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toBe('hi');
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  it('M18: Mcp-Method on two header lines is 400 -32020', async () => {
    const text = JSON.stringify(echo);
    const headers = Object.entries(mcpHeaders(echo)).map(([k, v]) => `${k}: ${v}`);
    const send = () =>
      rawExchange(
        fx.port,
        rawPost(fx.port, [...headers, 'Mcp-Method: tools/call', `Content-Length: ${Buffer.byteLength(text)}`], text),
      );
    await expectRefused(fx, send, { status: 400, code: -32020, id: 1 });
  });

  describe('M19: x-mcp-header parameters', () => {
    const call = (args: Record<string, unknown>) => mcpMessage('tools/call', { name: 'region', arguments: args });
    it('accepts matching headers, integers compared numerically', async () => {
      expect(
        (
          await fx.mcp.post(call({ region: 'eu', n: 42 }), {
            'mcp-param-region': 'eu',
            'mcp-param-n': '42.0',
          })
        ).status,
      ).toBe(200);
    });
    it.each([
      ['a missing header', { region: 'eu' }, {}],
      ['a disagreeing header', { region: 'eu' }, { 'mcp-param-region': 'us' }],
      ['an orphan header', {}, { 'mcp-param-region': 'eu' }],
    ])('%s is 400 -32020', async (_case, args, headers) => {
      await expectRefused(fx, () => fx.mcp.post(call(args), headers), {
        status: 400,
        code: -32020,
        id: 1,
      });
    });
    it('a header on two lines is 400 -32020', async () => {
      const body = call({ region: 'eu' });
      const text = JSON.stringify(body);
      const headers = Object.entries(mcpHeaders(body)).map(([k, v]) => `${k}: ${v}`);
      const raw = rawPost(
        fx.port,
        [...headers, 'Mcp-Param-Region: eu', 'Mcp-Param-Region: eu', `Content-Length: ${Buffer.byteLength(text)}`],
        text,
      );
      await expectRefused(fx, () => rawExchange(fx.port, raw), { status: 400, code: -32020, id: 1 });
    });
  });

  it('M21: a legacy initialize without an envelope is served on the 2025-era leg, with no session', async () => {
    const legacy = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const res = await fx.mcp.post(legacy, {
      'mcp-protocol-version': undefined,
      'mcp-method': undefined,
    });
    expect(res.status).toBe(200);
    expect(res.body.result.protocolVersion).toBe('2025-06-18');
    expect(res.headers['mcp-session-id']).toBeUndefined();
    await expectStillServing(fx);
  });

  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])(
    'M22: the removed method %s is 404 -32601 with the id echoed',
    async (method) => {
      await expectRefused(fx, () => fx.mcp.post(mcpMessage(method, {}, { id: 'r-7' })), {
        status: 404,
        code: -32601,
        id: 'r-7',
      });
    },
  );

  it('M23: a tool needing an undeclared capability is 400 -32021 with requiredCapabilities as an object', async () => {
    const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'needsSampling', arguments: {} }));
    expect(res.body.error.data).toEqual({ requiredCapabilities: { sampling: {} } });
    await expectRefused(fx, async () => res, { status: 400, code: -32021, id: 1 });
  });

  it('M24: without a logLevel the server emits no notifications/message', async () => {
    const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'chatty', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const logged = await fx.mcp.post(
      mcpMessage(
        'tools/call',
        { name: 'chatty', arguments: {} },
        { meta: { 'io.modelcontextprotocol/logLevel': 'info' } },
      ),
    );
    expect(logged.status).toBe(200);
    expect(sseMessages(logged.text).map((m) => m.method)).toContain('notifications/message');
  });

  it('M25: every error whose request id was readable echoes it', async () => {
    for (const id of [0, 'zero', 9007199254740991]) {
      const res = await fx.mcp.post(mcpMessage('nope/nope', {}, { id }));
      expect(res.body.id).toBe(id);
    }
  });

  it('M26: an unknown resource is -32602, never -32002 or empty contents', async () => {
    await expectRefused(fx, () => fx.mcp.post(mcpMessage('resources/read', { uri: 'mem://missing' })), {
      status: 400,
      code: -32602,
      id: 1,
    });
  });

  it('M27: a list configured as per-caller carries cacheScope "private" and ttlMs >= 0', async () => {
    const res = await fx.mcp.post(mcpMessage('tools/list'));
    expect(res.status).toBe(200);
    expect(res.body.result.cacheScope).toBe('private');
    expect(res.body.result.ttlMs).toBeGreaterThanOrEqual(0);
  });
});
