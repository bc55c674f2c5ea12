import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Content, MCPServer, McpModule, type McpContext } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';

const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('missing client capabilities and x-mcp-header validation', () => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let server: MCPServer;
  let calls = 0;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'headers', version: '1.0.0' })]);
    mcp = createMcpTestClient(app);
    server = app.get(MCPServer);
    server.addTool({
      name: 'summarize',
      description: 'Needs sampling',
      inputSchema: { type: 'object' },
      requiredCapabilities: { sampling: {} },
      handler: () => {
        calls++;
        return 'ok';
      },
    });
    server.addTool({
      name: 'ask',
      description: 'Asks the user through elicitation',
      inputSchema: { type: 'object' },
      handler: async (_a: object, _i: unknown, ctx: McpContext) => {
        const answer = await ctx.elicit(
          'Name?',
          { type: 'object', properties: { name: { type: 'string' } } },
          { key: 'name' },
        );
        return Content.text(String(answer.content?.name));
      },
    });
    server.addTool({
      name: 'deploy',
      description: 'Routes on region and replicas',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          replicas: { type: 'integer', 'x-mcp-header': 'Replicas' },
          dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
        },
      },
      handler: (args: Record<string, unknown>) => Content.text(JSON.stringify(args)),
    });
  });
  afterAll(() => app.close());

  describe('-32021 for an undeclared client capability', () => {
    it('refuses a tool that declares a capability the request lacks, before the handler runs', async () => {
      const before = calls;
      const res = await mcp.post(
        mcpMessage(
          'tools/call',
          { name: 'summarize', arguments: {} },
          { id: 'c1', clientCapabilities: { elicitation: {} } },
        ),
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 'c1',
        error: { code: -32021, message: expect.any(String), data: { requiredCapabilities: { sampling: {} } } },
      });
      expect(calls).toBe(before);
    });

    it('runs the tool when the capability is declared', async () => {
      const res = await mcp.post(
        mcpMessage('tools/call', { name: 'summarize', arguments: {} }, { clientCapabilities: { sampling: {} } }),
      );
      expect(res.status).toBe(200);
      expect(res.body.result.content).toEqual([{ type: 'text', text: 'ok' }]);
    });

    it('derives -32021 from an input request the client cannot answer', async () => {
      const res = await mcp.post(mcpMessage('tools/call', { name: 'ask', arguments: {} }, { clientCapabilities: {} }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      });
    });

    it('asks through input_required when the client can answer', async () => {
      const res = await mcp.post(
        mcpMessage('tools/call', { name: 'ask', arguments: {} }, { clientCapabilities: { elicitation: {} } }),
      );
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { name: { method: 'elicitation/create' } },
      });
    });
  });

  describe('Mcp-Param-* headers (SEP-2243)', () => {
    const deploy = (args: Record<string, unknown>, headers: Record<string, string | undefined>) =>
      mcp.post(mcpMessage('tools/call', { name: 'deploy', arguments: args }), headers);

    it('publishes the annotation in the tool schema', async () => {
      const res = await mcp.post(mcpMessage('tools/list'));
      expect(res.status).toBe(200);
      const tool = res.body.result.tools.find((t: { name: string }) => t.name === 'deploy');
      expect(tool.inputSchema.properties.region['x-mcp-header']).toBe('Region');
    });

    it('accepts headers that mirror the arguments: literal, base64-wrapped, numeric and boolean', async () => {
      expect(
        (
          await deploy(
            { region: 'eu-west-1', replicas: 3, dryRun: true },
            { 'mcp-param-region': 'eu-west-1', 'mcp-param-replicas': '3', 'mcp-param-dry-run': 'true' },
          )
        ).status,
      ).toBe(200);
      expect((await deploy({ region: 'Zürich' }, { 'mcp-param-region': b64('Zürich') })).status).toBe(200);
      expect((await deploy({ replicas: 42 }, { 'mcp-param-replicas': '42.0' })).status).toBe(200);
    });

    it('expects no header when the argument is absent', async () => {
      const res = await deploy({}, {});
      expect(res.status).toBe(200);
      expect(res.body.result.content).toEqual([{ type: 'text', text: '{}' }]);
    });

    it.each([
      [
        'a value that differs from the argument',
        { region: 'eu-west-1' },
        { 'mcp-param-region': 'us-east-1' },
        'Mcp-Param-Region must be "eu-west-1" (params.arguments.region), got "us-east-1"',
      ],
      [
        'a missing header while the argument is present',
        { region: 'eu-west-1' },
        {},
        'Mcp-Param-Region must be "eu-west-1" (params.arguments.region), got none',
      ],
      [
        'malformed base64 (bad padding)',
        { region: 'Hello' },
        { 'mcp-param-region': '=?base64?SGVsbG8?=' },
        'Mcp-Param-Region must be "Hello" (params.arguments.region), got "=?base64?SGVsbG8?=", which is malformed',
      ],
      [
        'malformed base64 (bad characters)',
        { region: 'Hello' },
        { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' },
        'Mcp-Param-Region must be "Hello" (params.arguments.region), got "=?base64?SGVs!!!bG8=?=", which is malformed',
      ],
      [
        'a header whose argument is absent',
        {},
        { 'mcp-param-region': 'eu-west-1' },
        'Mcp-Param-Region must be absent (params.arguments.region is absent), got "eu-west-1"',
      ],
      [
        'a non-numeric integer header',
        { replicas: 3 },
        { 'mcp-param-replicas': 'three' },
        'Mcp-Param-Replicas must be "3" (params.arguments.replicas), got "three"',
      ],
      [
        'a boolean header in the wrong case',
        { dryRun: true },
        { 'mcp-param-dry-run': 'TRUE' },
        'Mcp-Param-Dry-Run must be "true" (params.arguments.dryRun), got "TRUE"',
      ],
      [
        'a non-ASCII argument sent literally',
        { region: 'Zürich' },
        { 'mcp-param-region': 'Zurich' },
        `Mcp-Param-Region must be "${b64('Zürich')}" (params.arguments.region "Zürich", base64-wrapped), got "Zurich"`,
      ],
    ])('rejects %s with -32020 / 400 and says what the header must be', async (_what, args, headers, message) => {
      const res = await deploy(args, headers);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: -32020, message: `Header mismatch: ${message}` });
      expect(res.body.id).toBe(1);
    });

    it('rejects invalid annotations when the tool is registered', () => {
      const add = (properties: Record<string, unknown>) => () =>
        server.addTool({
          name: `bad_${Math.random().toString(36).slice(2)}`,
          description: 'x',
          inputSchema: { type: 'object', properties },
          handler: () => 'x',
        });
      expect(add({ a: { type: 'number', 'x-mcp-header': 'A' } })).toThrow(/type string, integer or boolean/);
      expect(add({ a: { type: 'string', 'x-mcp-header': 'Bad Name' } })).toThrow(/HTTP token/);
      expect(add({ a: { type: 'string', 'x-mcp-header': '' } })).toThrow(/HTTP token/);
      expect(
        add({ a: { type: 'string', 'x-mcp-header': 'Dup' }, b: { type: 'string', 'x-mcp-header': 'dup' } }),
      ).toThrow(/used twice/);
      expect(add({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } })).toThrow(
        /only allowed on properties/,
      );
    });
  });

  describe('routing headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name)', () => {
    beforeAll(() => {
      server.addResource({ uri: 'file:///x', name: 'x', handler: () => 'x' });
      server.addPrompt({ name: 'greet', description: 'Greets', handler: () => 'hi' });
    });

    it.each([
      [
        'resources/read without Mcp-Name',
        mcpMessage('resources/read', { uri: 'file:///x' }),
        { 'mcp-name': undefined },
        'Mcp-Name must be "file:///x" (params.uri), got none',
      ],
      [
        'prompts/get with another Mcp-Name',
        mcpMessage('prompts/get', { name: 'greet' }),
        { 'mcp-name': 'other' },
        'Mcp-Name must be "greet" (params.name), got "other"',
      ],
      [
        'a Mcp-Method that differs from the body',
        mcpMessage('tools/list'),
        { 'mcp-method': 'tools/call' },
        'Mcp-Method must be "tools/list" (method), got "tools/call"',
      ],
      [
        'no MCP-Protocol-Version',
        mcpMessage('tools/list'),
        { 'mcp-protocol-version': undefined },
        'MCP-Protocol-Version must be "2026-07-28" (params._meta["io.modelcontextprotocol/protocolVersion"]), got none',
      ],
    ])('%s is -32020 / 400 naming the header and the value the body implies', async (_what, body, headers, message) => {
      const res = await mcp.post(body, headers);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: -32020, message: `Header mismatch: ${message}` });
    });
  });
});
