import 'reflect-metadata';
import { MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { assertNoLeak, expectRefused, expectStillServing, FAKE_SECRET, startFixture, type Fixture } from './fixture.js';
import type { HandlerErrorReport } from '../../src/server/failures/handler-error-policy.js';

// security.md §2.4: dispatch, tools and resources (rows D1-D15; D12 does not apply, see docs/security.md).
describe('security §2.4 dispatch (D rows)', () => {
  let fx: Fixture;
  const b64 = (s: string) => `=?base64?${Buffer.from(s).toString('base64')}?=`;
  /** An unknown tool is refused in-band or as -32602; either way nothing runs (security.md §2.4 D3 allows both). */
  const expectToolRefused = async (name: string) => {
    const before = fx.calls();
    const res = await fx.mcp.post(mcpMessage('tools/call', { name, arguments: {} }), {
      'mcp-name': b64(name),
    });
    expect(res.status).toBeLessThan(500);
    if (res.body.error) expect(res.body.error.code).toBe(-32602);
    else expect(res.body.result.isError).toBe(true);
    expect(res.body.id).toBe(1);
    expect(fx.calls()).toBe(before);
    await expectStillServing(fx);
  };

  beforeAll(async () => {
    fx = await startFixture();
    fx.server.registerTool(
      'thrower',
      'Throws non-Errors',
      { type: 'object', properties: { how: { type: 'string' } } },
      (args: { how: string }) => {
        switch (args.how) {
          case 'string':
            throw 'x';
          case 'undefined':
            throw undefined;
          case 'null':
            return Promise.reject(null);
          default:
            throw new TypeError('sync before any await');
        }
      },
    );
  });
  afterAll(() => fx.app.close());

  it('D1: an unknown method is 404 -32601', async () => {
    await expectRefused(fx, () => fx.mcp.post(mcpMessage('nope/nope')), {
      status: 404,
      code: -32601,
      id: 1,
    });
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'D2: the prototype-chain method %s is 404 -32601',
    async (method) => {
      await expectRefused(fx, () => fx.mcp.post(mcpMessage(method)), {
        status: 404,
        code: -32601,
        id: 1,
      });
    },
  );

  it('D3: an unknown tool is refused and nothing runs', () => expectToolRefused('nope'));

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('D4: a tool named %s does not exist', (name) =>
    expectToolRefused(name),
  );

  it('D5: a tool name with NUL or control characters is not found', () => expectToolRefused('echo\u0000'));

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'D4: a prompt, completion reference or completion argument named %s does not exist',
    async (name) => {
      fx.server.addPrompt({
        name: 'greet',
        description: 'x',
        arguments: [{ name: 'who' }],
        handler: () => 'hi',
        complete: { who: () => ['a'] },
      });
      await expectRefused(
        fx,
        () => fx.mcp.post(mcpMessage('prompts/get', { name, arguments: {} }), { 'mcp-name': name }),
        { status: 400, code: -32602, id: 1 },
      );
      await expectRefused(
        fx,
        () =>
          fx.mcp.post(
            mcpMessage('completion/complete', {
              ref: { type: 'ref/prompt', name },
              argument: { name: 'who', value: 'a' },
            }),
          ),
        {
          status: 400,
          code: -32602,
          id: 1,
        },
      );
      // An argument named after an Object.prototype member has no completer: an empty completion, nothing called.
      const res = await fx.mcp.post(
        mcpMessage('completion/complete', {
          ref: { type: 'ref/prompt', name: 'greet' },
          argument: { name, value: 'a' },
        }),
      );
      expect(res.status).toBe(200);
      expect(res.body.result.completion).toEqual({ values: [], total: 0, hasMore: false });
      fx.server.removePrompt('greet');
    },
  );

  it('D6: arguments failing the inputSchema are an isError result and the handler never runs', async () => {
    const before = fx.calls();
    const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: 5 } }));
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(fx.calls()).toBe(before);
  });

  it.each([['"str"'], ['[]'], ['null'], ['7']])('D7: arguments %s (not an object) is 400 -32602', async (args) => {
    const body = JSON.stringify(mcpMessage('tools/call', { name: 'echo' })).replace(
      '"name":"echo"',
      `"name":"echo","arguments":${args}`,
    );
    await expectRefused(
      fx,
      () =>
        fx.mcp.post(body, {
          'mcp-method': 'tools/call',
          'mcp-name': 'echo',
          'mcp-protocol-version': '2026-07-28',
        }),
      {
        status: 400,
        code: -32602,
        id: 1,
      },
    );
  });

  it('D8: __proto__ keys in arguments, _meta and params pollute nothing', async () => {
    const body = JSON.stringify(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'safe' } }))
      .replace('"text":"safe"', '"text":"safe","__proto__":{"polluted":"args"}')
      .replace('"_meta":{', '"_meta":{"__proto__":{"polluted":"meta"},')
      .replace(
        '"params":{',
        '"params":{"__proto__":{"polluted":"params"},"constructor":{"prototype":{"polluted":"ctor"}},',
      );
    const res = await fx.mcp.post(body, {
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      'mcp-protocol-version': '2026-07-28',
    });
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toBe('safe');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('D8: a __proto__ key in inputResponses stays a key and changes no prototype', async () => {
    fx.server.registerTool('inspect', 'Describes its input responses', { type: 'object' }, (_a, inputs) => ({
      plainPrototype: Object.getPrototypeOf(inputs) === Object.prototype,
      keys: Object.keys(inputs),
    }));
    const body = JSON.stringify(
      mcpMessage('tools/call', { name: 'inspect', arguments: {}, inputResponses: { ok: { action: 'decline' } } }),
    ).replace('"inputResponses":{', '"inputResponses":{"__proto__":{"action":"accept","content":{}},');
    try {
      const res = await fx.mcp.post(body, {
        'mcp-method': 'tools/call',
        'mcp-name': 'inspect',
        'mcp-protocol-version': '2026-07-28',
      });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.result.content[0].text)).toEqual({ plainPrototype: true, keys: ['__proto__', 'ok'] });
    } finally {
      fx.server.removeTool('inspect');
    }
  });

  it('D9: a name smuggled through params.__proto__ is not a name: 400 -32602', async () => {
    const body = JSON.stringify(mcpMessage('tools/call', {})).replace(
      '"params":{',
      '"params":{"__proto__":{"name":"echo"},',
    );
    await expectRefused(
      fx,
      () => fx.mcp.post(body, { 'mcp-method': 'tools/call', 'mcp-protocol-version': '2026-07-28' }),
      { status: 400, code: -32602, id: 1 },
    );
  });

  it('D10: a handler error is an isError result without stack or absolute path', async () => {
    const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'boom', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toMatch(/^Error: database exploded/);
    assertNoLeak(res.text);
  });

  it.each(['string', 'undefined', 'null', 'sync'])('D11: a handler throwing %s is an isError result', async (how) => {
    const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'thrower', arguments: { how } }));
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toMatch(/^Error: /);
    assertNoLeak(res.text);
    await expectStillServing(fx);
  });

  it('D15: tools/list is identical on repeated calls and across fresh instances', async () => {
    const reply = await fx.mcp.post(mcpMessage('tools/list'));
    expect(reply.status).toBe(200);
    const first = reply.body.result.tools;
    await fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'side effect?' } }));
    const reply2 = await fx.mcp.post(mcpMessage('tools/list'));
    expect(reply2.status).toBe(200);
    const second = reply2.body.result.tools;
    expect(second).toEqual(first);
    const other = await startFixture();
    try {
      other.server.registerTool(
        'thrower',
        'Throws non-Errors',
        { type: 'object', properties: { how: { type: 'string' } } },
        () => undefined,
      );
      const reply3 = await other.mcp.post(mcpMessage('tools/list'));
      expect(reply3.status).toBe(200);
      expect(reply3.body.result.tools).toEqual(first);
    } finally {
      await other.app.close();
    }
  });
});

describe('D10 in production: unexpected handler errors are redacted', () => {
  it('replaces the message with a generic text and a correlation id that the server log receives; ToolError passes', async () => {
    const reports: Array<{ error: unknown; report: HandlerErrorReport }> = [];
    const fx = await startFixture({
      observability: { redactErrors: true, onHandlerError: (error, report) => reports.push({ error, report }) },
    });
    try {
      const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'boom', arguments: {} }));
      expect(res.status).toBe(200);
      const text: string = res.body.result.content[0].text;
      expect(res.body.result.isError).toBe(true);
      expect(text).not.toContain(FAKE_SECRET);
      expect(text).not.toContain('exploded');
      const reference = /^Error: Internal error \(reference ([0-9a-f-]{36})\)$/.exec(text);
      expect(reference).not.toBeNull();
      expect(reports).toHaveLength(1);
      expect(reports[0].report).toEqual({
        correlationId: reference![1],
        method: 'tools/call',
        name: 'boom',
        requestId: 1,
      });
      expect((reports[0].error as Error).message).toContain(FAKE_SECRET);

      const meant = await fx.mcp.post(mcpMessage('tools/call', { name: 'refuse', arguments: {} }));
      expect(meant.status).toBe(200);
      expect(meant.body.result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Error: City not found' }],
      });
      expect(reports).toHaveLength(1);
    } finally {
      await fx.app.close();
    }
  });

  it('is on by default when NODE_ENV is production', async () => {
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const app = await createApp([
        McpModule.forRoot({ name: 'prod', version: '1', observability: { onHandlerError: () => undefined } }),
      ]);
      app.get(MCPServer).registerTool('boom', 'x', { type: 'object' }, () => {
        throw new Error(FAKE_SECRET);
      });
      process.env.NODE_ENV = previous;
      const res = await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'boom', arguments: {} }));
      expect(res.status).toBe(200);
      expect(res.body.result.content[0].text).toMatch(/^Error: Internal error \(reference /);
      await app.close();
    } finally {
      process.env.NODE_ENV = previous;
    }
  });
});
