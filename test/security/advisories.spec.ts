import 'reflect-metadata';
import { jest } from '@jest/globals';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import {
  expectRefused,
  expectStillServing,
  openStream,
  startFixture,
  waitFor,
  withoutUnhandledRejections,
  type Fixture,
} from './fixture.js';
import { McpKernel } from '../../src/core/index.js';

// Volume and timing tests: generous bounds for a loaded 2-core CI machine (they assert correctness, not speed).
jest.setTimeout(60_000);

// security.md §4: one regression test per advisory that applies to a library (V1-V8, V13, V14).
describe('security §4 advisories', () => {
  let fx: Fixture;
  const echo = mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } });

  beforeAll(async () => {
    fx = await startFixture({ requestState: { ttlMs: 60_000 } }, true);
    fx.server.registerTool(
      'confirm',
      'Asks for confirmation',
      { type: 'object', properties: { item: { type: 'string' } } },
      async (args: { item: string }, _i, ctx) => {
        const answer = await ctx.elicit(`Delete ${args.item}?`, {
          type: 'object',
          properties: { ok: { type: 'boolean' } },
        });
        return `answer ${answer.action}`;
      },
    );
  });
  afterAll(() => fx.app.close());

  it('V1 (CVE-2025-66414 class): DNS-rebinding protection is on with no configuration', async () => {
    await expectRefused(fx, () => fx.mcp.post(echo, { host: 'evil.example.com', origin: 'http://evil.example.com' }), {
      status: 403,
      code: -32600,
      id: null,
    });
    expect((await fx.mcp.post(echo, { host: `localhost:${fx.port}` })).status).toBe(200);
  });

  it('V2 (CVE-2026-33252): a cross-site text/plain POST never reaches a tool', async () => {
    await expectRefused(fx, () => fx.mcp.post(echo, { 'content-type': 'text/plain' }), {
      status: 415,
      code: -32600,
      id: null,
    });
    await expectRefused(
      fx,
      () => fx.mcp.post(echo, { 'content-type': 'text/plain', origin: 'https://attacker.example' }),
      { status: 403, code: -32600, id: null },
    );
  });

  it('V3 (CVE-2026-25536, GHSA-jm63-cq47-j5jp): colliding ids never cross responses or notifications', async () => {
    const calls = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: `p${i}` } }, { id: 0 })),
      ),
    );
    calls.forEach((res, i) => expect(res.body).toMatchObject({ id: 0, result: { content: [{ text: `p${i}` }] } }));
    const streams = [0, 1, 2].map((i) =>
      openStream(
        fx.port,
        mcpMessage(
          'tools/call',
          { name: 'slowProgress', arguments: { n: 3 + i } },
          { id: 0, meta: { progressToken: 'same' } },
        ),
      ),
    );
    await Promise.all(streams.map((s) => s.ended));
    streams.forEach((s, i) =>
      expect(s.messages().filter((m) => m.method === 'notifications/progress')).toHaveLength(3 + i),
    );
  });

  it('V4 (CVE-2026-0621): a crafted URI cannot make template matching backtrack', async () => {
    fx.server.addResourceTemplate({ uriTemplate: 'files://{dir}{name}{ext}', name: 'adjacent', handler: () => 'x' });
    const res = await fx.mcp.post(mcpMessage('resources/read', { uri: `files://${'x'.repeat(5_000)}/` }));
    expect(res.body.error.code).toBe(-32602);
  });

  it('V5 (CVE-2025-69873): $data is off, so a schema cannot take a pattern from the data; patterns run on RE2', async () => {
    const schema = {
      type: 'object',
      properties: { p: { type: 'string' }, v: { type: 'string', pattern: { $data: '1/p' } } },
    };
    expect(() => fx.server.registerTool('data', 'x', schema, () => 'x')).toThrow(/invalid JSON Schema/);
    const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'regex', arguments: { q: `${'a'.repeat(100)}!` } }));
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
  });

  it('V6 (CVE-2025-53365): a storm of client disconnects crashes nothing and leaks no call', async () => {
    await withoutUnhandledRejections(async () => {
      const aborted = fx.aborted();
      const streams = Array.from({ length: 50 }, () =>
        openStream(fx.port, mcpMessage('tools/call', { name: 'hang', arguments: {} })),
      );
      await waitFor(() => fx.server.load.calls === 50, 5_000, '50 calls in flight');
      streams.forEach((s) => s.close());
      await waitFor(() => fx.aborted() === aborted + 50 && fx.server.load.calls === 0, 5_000, 'every handler signal');
      await expectStillServing(fx);
    });
  });

  it('V7 (CVE-2025-53366, python-sdk#2328): malformed requests get 4xx and the service stays up', async () => {
    const bodies = [
      '{',
      '[]',
      'null',
      '{"jsonrpc":"2.0","id":{},"method":"x"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}',
      '"\\ud800"',
    ];
    for (const body of bodies) await expectRefused(fx, () => fx.mcp.post(body, mcpHeaders(echo)), { status: 400 });
  });

  it('V8 (CVE-2026-27896, GHSA-q382-vc8q-7jhj): keys are exact, duplicates cannot disagree with headers, NUL is not folded', async () => {
    await expectRefused(
      fx,
      () => fx.mcp.post('{"jsonrpc":"2.0","id":1,"Method":"tools/list"}', mcpHeaders(mcpMessage('tools/list'))),
      { status: 400, code: -32600 },
    );
    const duplicate = JSON.stringify(echo).replace(
      '"method":"tools/call"',
      '"method":"tools/call","method":"tools/list"',
    );
    await expectRefused(fx, () => fx.mcp.post(duplicate, mcpHeaders(echo)), {
      status: 400,
      code: -32020,
      id: 1,
    });
    const nul = mcpMessage('tools/call', { name: 'echo\u0000', arguments: { text: 'x' } });
    const before = fx.calls();
    const res = await fx.mcp.post(nul, {
      'mcp-name': `=?base64?${Buffer.from('echo\u0000').toString('base64')}?=`,
    });
    expect(res.body.result?.isError ?? res.body.error?.code === -32602).toBe(true);
    expect(fx.calls()).toBe(before);
  });

  describe('V13 and V14: request state is integrity-protected and bound to its request and principal', () => {
    const confirm = (extra: Record<string, unknown> = {}, item = 'db') =>
      mcpMessage(
        'tools/call',
        { name: 'confirm', arguments: { item }, ...extra },
        { clientCapabilities: { elicitation: {} } },
      );
    const answers = { elicit_0: { action: 'accept', content: { ok: true } } };

    async function firstRound(): Promise<string> {
      const res = await fx.mcp.post(confirm());
      expect(res.status).toBe(200);
      expect(res.body.result.resultType).toBe('input_required');
      return res.body.result.requestState as string;
    }

    it('the genuine state completes the call', async () => {
      const state = await firstRound();
      const res = await fx.mcp.post(confirm({ inputResponses: answers, requestState: state }));
      expect(res.status).toBe(200);
      expect(res.body.result.content[0].text).toBe('answer accept');
    });

    it.each([
      ['tampered', (s: string) => `${s}-TAMPERED`, 'db'],
      ['payload swapped', (s: string) => s.replace(/^v1\.[^.]+/, 'v1.eyJwIjp7fX0'), 'db'],
      ['replayed with other arguments', (s: string) => s, 'other'],
    ])('a %s state is -32602', async (_case, mutate, item) => {
      const state = mutate(await firstRound());
      await expectRefused(fx, () => fx.mcp.post(confirm({ inputResponses: answers, requestState: state }, item)), {
        status: 400,
        code: -32602,
        id: 1,
      });
    });

    it('an expired state is -32602', async () => {
      const kernel = new McpKernel({ name: 'ttl', version: '1', requestState: { ttlMs: 1 } });
      kernel.registerTool(
        'confirm',
        'x',
        { type: 'object' },
        async (_a, _i, ctx) => (await ctx.elicit('ok?', { type: 'object' })).action,
      );
      const first = await kernel.handleRequest(confirm());
      const state = (first as unknown as { result: { requestState: string } }).result.requestState;
      await new Promise((resolve) => setTimeout(resolve, 20));
      const res = await kernel.handleRequest(confirm({ inputResponses: answers, requestState: state }));
      expect(res).toMatchObject({
        error: { code: -32602, data: { reason: 'invalid_request_state', detail: 'expired' } },
      });
    });

    it('V14: a state minted for principal A is refused for principal B', async () => {
      const kernel = new McpKernel({ name: 'principals', version: '1' });
      kernel.registerTool(
        'confirm',
        'x',
        { type: 'object', properties: { item: { type: 'string' } } },
        async (_a, _i, ctx) => (await ctx.elicit('ok?', { type: 'object' })).action,
      );
      const first = await kernel.handleRequest(confirm(), { principal: { sub: 'alice' } });
      const state = (first as unknown as { result: { requestState: string } }).result.requestState;
      const stolen = await kernel.handleRequest(confirm({ inputResponses: answers, requestState: state }), {
        principal: { sub: 'mallory' },
      });
      expect(stolen).toMatchObject({
        error: { code: -32602, data: { reason: 'invalid_request_state', detail: 'binding' } },
      });
      const own = await kernel.handleRequest(confirm({ inputResponses: answers, requestState: state }), {
        principal: { sub: 'alice' },
      });
      expect(own).toMatchObject({ result: { content: [{ text: 'accept' }] } });
    });
  });
});
