import { ErrorCode, InputRequired } from '../../src/index.js';
import { McpKernel, type JsonRpcResponse } from '../../src/core/index.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function kernel(): McpKernel {
  const k = new McpKernel({ name: 'unit', version: '1.2.3' });
  k.registerTool(
    'echo',
    'Echoes text',
    { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    (a: { text: string }) => a.text,
  );
  return k;
}

const call = (k: McpKernel, params: Record<string, unknown>, meta: Record<string, unknown> = META) =>
  k.handleRequest({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { _meta: meta, ...params },
  }) as Promise<JsonRpcResponse>;

function resultOf(response: JsonRpcResponse | undefined): Record<string, unknown> {
  if (!response || !('result' in response)) throw new Error(`expected a result, got ${JSON.stringify(response)}`);
  return response.result;
}

function errorOf(response: JsonRpcResponse | undefined) {
  if (!response || !('error' in response)) throw new Error(`expected an error, got ${JSON.stringify(response)}`);
  return response;
}

describe('McpKernel.handleRequest', () => {
  describe('rule 1: the JSON-RPC envelope', () => {
    it.each([
      ['a string', 'hello'],
      ['null', null],
      ['an array (batch)', [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]],
      ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
      ['a missing jsonrpc', { id: 1, method: 'tools/list' }],
      ['a non-string method', { jsonrpc: '2.0', id: 1, method: 42 }],
      ['a response object', { jsonrpc: '2.0', id: 1, result: {} }],
      ['array params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] }],
    ])('rejects %s with -32600', async (_label, message) => {
      const response = errorOf(await kernel().handleRequest(message));
      expect(response.error.code).toBe(ErrorCode.InvalidRequest);
    });

    it.each([
      ['null', null],
      ['a float', 1.5],
      ['an object', { a: 1 }],
      ['a boolean', true],
      ['an unsafe integer', 2 ** 60],
    ])('rejects an id that is %s with -32600 and a null id', async (_label, id) => {
      const response = errorOf(await kernel().handleRequest({ jsonrpc: '2.0', id, method: 'tools/list' }));
      expect(response.error.code).toBe(ErrorCode.InvalidRequest);
      expect(response.id).toBeNull();
    });

    it('echoes string and integer ids', async () => {
      expect(
        (await kernel().handleRequest({ jsonrpc: '2.0', id: 'abc', method: 'tools/list', params: { _meta: META } }))!
          .id,
      ).toBe('abc');
      expect(
        (await kernel().handleRequest({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: META } }))!.id,
      ).toBe(0);
    });

    it('echoes the id on an invalid request whose id is readable', async () => {
      const response = errorOf(await kernel().handleRequest({ jsonrpc: '1.0', id: 7, method: 'tools/list' }));
      expect(response.id).toBe(7);
    });

    it('runs nothing and answers nothing for a notification', async () => {
      const k = kernel();
      let calls = 0;
      k.registerTool('canary', 'Counts calls', { type: 'object' }, () => ++calls);
      const response = await k.handleRequest({
        jsonrpc: '2.0',
        method: 'tools/call',
        params: { name: 'canary', _meta: META },
      });
      expect(response).toBeUndefined();
      expect(calls).toBe(0);
    });
  });

  it('rule 2: an unknown method gets -32601', async () => {
    const response = errorOf(
      await kernel().handleRequest({ jsonrpc: '2.0', id: 1, method: 'nope/nothing', params: { _meta: META } }),
    );
    expect(response.error.code).toBe(ErrorCode.MethodNotFound);
  });

  it.each(['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])(
    'rule 2: the removed method %s gets -32601',
    async (method) => {
      const response = errorOf(
        await kernel().handleRequest({ jsonrpc: '2.0', id: 1, method, params: { _meta: META } }),
      );
      expect(response.error.code).toBe(ErrorCode.MethodNotFound);
    },
  );

  it('rule 3: initialize gets -32601 explaining the stateless revision', async () => {
    const response = errorOf(
      await kernel().handleRequest({
        jsonrpc: '2.0',
        id: 9,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25' },
      }),
    );
    expect(response.id).toBe(9);
    expect(response.error.code).toBe(ErrorCode.MethodNotFound);
    expect(response.error.message).toMatch(/removed by the stateless 2026-07-28 specification/);
    expect(response.error.message).toMatch(/no handshake before tool calls/);
    expect(response.error.message).toMatch(/server\/discover/);
    expect(response.error.data).toEqual({ supported: ['2026-07-28'] });
  });

  describe('rule 4: the protocol version', () => {
    it('rejects a bare _meta.protocolVersion other than 2026-07-28 with -32600', async () => {
      const response = errorOf(
        await kernel().handleRequest({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { _meta: { protocolVersion: '2025-06-18' } },
        }),
      );
      expect(response.error.code).toBe(ErrorCode.InvalidRequest);
    });

    it('accepts a bare _meta.protocolVersion of 2026-07-28', async () => {
      resultOf(
        await kernel().handleRequest({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { _meta: { protocolVersion: '2026-07-28' } },
        }),
      );
    });

    it('answers an unsupported spec-key version with -32022 and {supported, requested}', async () => {
      const response = errorOf(
        await kernel().handleRequest({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/list',
          params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
        }),
      );
      expect(response.error.code).toBe(ErrorCode.UnsupportedProtocolVersion);
      expect(response.error.data).toEqual({ supported: ['2026-07-28'], requested: '1900-01-01' });
    });

    it('works without any _meta (the kernel does not need a transport)', async () => {
      resultOf(await kernel().handleRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    });
  });

  it('rule 5: tools/list returns tools in registration order with the spec fields', async () => {
    const k = kernel();
    k.registerTool('second', 'Second tool', { type: 'object' }, () => 'x');
    k.registerTool('third', 'Third tool', { type: 'object', properties: { n: { type: 'integer' } } }, () => 'y');
    const result = resultOf(
      await k.handleRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }),
    );
    expect((result.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['echo', 'second', 'third']);
    expect(result.tools).toContainEqual({
      name: 'third',
      description: 'Third tool',
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
    });
    expect(result.resultType).toBe('complete');
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    expect(['public', 'private']).toContain(result.cacheScope);
  });

  describe('rule 6: tools/call', () => {
    it('rejects a missing or non-string name with -32602', async () => {
      expect(errorOf(await call(kernel(), {})).error.code).toBe(ErrorCode.InvalidParams);
      expect(errorOf(await call(kernel(), { name: 5 })).error.code).toBe(ErrorCode.InvalidParams);
    });

    it('rejects non-object arguments with -32602', async () => {
      expect(errorOf(await call(kernel(), { name: 'echo', arguments: 'hi' })).error.code).toBe(ErrorCode.InvalidParams);
      expect(errorOf(await call(kernel(), { name: 'echo', arguments: [1] })).error.code).toBe(ErrorCode.InvalidParams);
    });

    it('treats absent arguments as {}', async () => {
      const k = kernel();
      let seen: unknown;
      k.registerTool('noargs', 'No arguments', { type: 'object' }, (args) => {
        seen = args;
        return 'ok';
      });
      expect(resultOf(await call(k, { name: 'noargs' })).content).toEqual([{ type: 'text', text: 'ok' }]);
      expect(seen).toEqual({});
    });

    it('answers an unregistered tool with an isError "Tool not found" result', async () => {
      expect(resultOf(await call(kernel(), { name: 'missing', arguments: {} }))).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Tool not found' }],
      });
    });

    it('answers a missing required argument with "Missing required argument: <arg>"', async () => {
      expect(resultOf(await call(kernel(), { name: 'echo', arguments: {} }))).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Missing required argument: text' }],
      });
    });

    it('names the argument and the rule for other schema violations', async () => {
      const result = resultOf(await call(kernel(), { name: 'echo', arguments: { text: 42 } }));
      expect(result.isError).toBe(true);
      const text = (result.content as Array<{ text: string }>)[0].text;
      expect(text).toContain('"text"');
      expect(text).toContain('(type)');
    });

    it('validates with JSON Schema 2020-12 (prefixItems, $defs)', async () => {
      const k = kernel();
      k.registerTool(
        'pair',
        'Takes a pair',
        {
          type: 'object',
          $defs: { small: { type: 'integer', maximum: 9 } },
          properties: {
            pair: { type: 'array', prefixItems: [{ $ref: '#/$defs/small' }, { type: 'string' }], items: false },
          },
          required: ['pair'],
        },
        () => 'ok',
      );
      expect(resultOf(await call(k, { name: 'pair', arguments: { pair: [3, 'x'] } })).isError).toBeUndefined();
      expect(resultOf(await call(k, { name: 'pair', arguments: { pair: [30, 'x'] } })).isError).toBe(true);
      expect(resultOf(await call(k, { name: 'pair', arguments: { pair: [3, 'x', 'extra'] } })).isError).toBe(true);
    });

    it('turns a thrown InputRequired into an input_required result with both keys and the documented text', async () => {
      const k = kernel();
      const requests = {
        confirm: {
          method: 'elicitation/create' as const,
          params: { message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
        },
      };
      k.registerTool('ask', 'Asks first', { type: 'object' }, () => {
        throw new InputRequired(requests);
      });
      const withElicitation = { ...META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
      const result = resultOf(await call(k, { name: 'ask', arguments: {} }, withElicitation));
      expect(result).toMatchObject({
        resultType: 'input_required',
        inputRequests: requests,
        requests,
        content: [{ type: 'text', text: 'Additional client input is required before this tool can finish.' }],
      });
      expect(typeof result.requestState).toBe('string');
    });

    it('passes inputResponses to the handler on the retry', async () => {
      const k = kernel();
      k.registerTool('ask', 'Asks first', { type: 'object' }, (_args, inputResponses) => {
        const answer = inputResponses.confirm as { action: string } | undefined;
        if (!answer)
          throw new InputRequired({
            confirm: {
              method: 'elicitation/create',
              params: { message: 'Sure?', requestedSchema: { type: 'object' } },
            },
          });
        return `answer: ${answer.action}`;
      });
      const result = resultOf(
        await call(k, { name: 'ask', arguments: {}, inputResponses: { confirm: { action: 'accept', content: {} } } }),
      );
      expect(result.content).toEqual([{ type: 'text', text: 'answer: accept' }]);
      expect(result.resultType).toBe('complete');
    });

    it.each([
      ['a string', 'plain', 'plain'],
      ['a number', 42, '42'],
      ['a boolean', false, 'false'],
      ['an object', { a: 1, b: [2] }, '{"a":1,"b":[2]}'],
    ])('renders %s handler output as text', async (_label, output, text) => {
      const k = kernel();
      k.registerTool('out', 'Output', { type: 'object' }, () => output);
      expect(resultOf(await call(k, { name: 'out' }))).toMatchObject({
        content: [{ type: 'text', text }],
        resultType: 'complete',
      });
    });

    it('passes a full tool result through', async () => {
      const k = kernel();
      const full = { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], structuredContent: { n: 1 } };
      k.registerTool('full', 'Full result', { type: 'object' }, () => full);
      expect(resultOf(await call(k, { name: 'full' }))).toMatchObject({ ...full, resultType: 'complete' });
    });

    it('answers a handler exception with "Error: <message>" and no stack', async () => {
      const k = kernel();
      k.registerTool('boom', 'Throws', { type: 'object' }, async () => {
        throw new Error('disk full');
      });
      const result = resultOf(await call(k, { name: 'boom' }));
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: disk full' }] });
      expect(JSON.stringify(result)).not.toContain('    at ');
    });
  });

  it('rule 7: server/discover', async () => {
    const k = new McpKernel({ name: 'disc', version: '2.0.0', instructions: 'Use the tools.' });
    const result = resultOf(
      await k.handleRequest({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } }),
    );
    expect(result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      instructions: 'Use the tools.',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'disc', version: '2.0.0' } },
    });
    expect(result.capabilities).toBeDefined();
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    expect(['public', 'private']).toContain(result.cacheScope);
  });

  it('rule 7: every result carries the serverInfo _meta entry', async () => {
    const result = resultOf(await call(kernel(), { name: 'echo', arguments: { text: 'x' } }));
    expect(result._meta).toEqual({ 'io.modelcontextprotocol/serverInfo': { name: 'unit', version: '1.2.3' } });
  });
});

describe('McpKernel.registerTool', () => {
  it('refuses a duplicate name with a clear message', () => {
    expect(() => kernel().registerTool('echo', 'Again', { type: 'object' }, () => 'x')).toThrow(
      'Tool "echo" is already registered',
    );
  });

  it('refuses an invalid name', () => {
    expect(() => kernel().registerTool('has space', 'Bad', { type: 'object' }, () => 'x')).toThrow(/Invalid tool name/);
  });

  it('refuses an input schema that is not an object schema', () => {
    expect(() => kernel().registerTool('arr', 'Bad', { type: 'array' }, () => 'x')).toThrow(/"type": "object"/);
  });

  it('refuses a schema with an unresolvable remote $ref instead of fetching it', () => {
    expect(() =>
      kernel().registerTool(
        'remote',
        'Bad',
        { type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } },
        () => 'x',
      ),
    ).toThrow(/invalid JSON Schema/);
  });

  it('refuses a schema whose local $ref names no definition, though the meta-schema accepts it', () => {
    expect(() =>
      kernel().registerTool(
        'dangling',
        'Bad',
        { type: 'object', properties: { a: { $ref: '#/$defs/missing' } }, $defs: { present: { type: 'string' } } },
        () => 'x',
      ),
    ).toThrow(/invalid JSON Schema/);
  });

  it('refuses an unsupported $schema dialect', () => {
    expect(() =>
      kernel().registerTool(
        'old',
        'Old dialect',
        { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
        () => 'x',
      ),
    ).toThrow(/unsupported JSON Schema dialect/);
  });
});
