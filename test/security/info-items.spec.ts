import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { ErrorCode, MCPServer, McpModule } from '../../src/index.js';
import request from 'supertest';
import { createMcpTestClient, mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { createTestIssuer, ISSUER, RESOURCE } from '../support/auth-tokens.js';
import { createApp } from '../support/create-app.js';
import { legacyHeaders, legacyPost, legacyRequest } from '../support/legacy-client.js';
import { WITH_TASKS } from '../support/task-requests.js';
import { META_CLIENT_CAPABILITIES } from '../../src/protocol/versions.js';
import { TASKS_EXTENSION } from '../../src/protocol/extensions/tasks.js';

const sent = (headers: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));

/** Nesting `depth` levels of objects, built without recursion and sent as JSON text. */
function nested(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/**
 * The INFO items of security round 2 (finding 12): deep arguments and replies get their precise errors, an
 * error about a reply has `id: null`, and a 2025-era `initialize` without its required params is -32602.
 */
describe('security round 2: nesting depth, reply ids and initialize params', () => {
  let app: INestApplication;
  let calls = 0;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'info', version: '1.0.0' })]);
    app.get(MCPServer).addTool({
      name: 'echo',
      description: 'Echoes its arguments',
      inputSchema: { type: 'object' },
      handler: (args) => {
        calls++;
        return args;
      },
    });
    app.get(MCPServer).addTool({
      name: 'report',
      description: 'May run as a task',
      inputSchema: { type: 'object' },
      taskSupport: 'optional',
      handler: () => 'report ready',
    });
    app.get(MCPServer).addTool({
      name: 'batch',
      description: 'Runs only as a task',
      inputSchema: { type: 'object' },
      taskSupport: 'required',
      handler: () => 'batch done',
    });
  });
  afterAll(() => app.close());

  it('refuses 10,000-deep arguments with -32602 before the handler runs (no stack overflow, no -32603)', async () => {
    const before = calls;
    const shallow = mcpMessage('tools/call', { name: 'echo', arguments: { deep: 0 } });
    const text = JSON.stringify(shallow).replace('"deep":0', `"deep":${nested(10_000)}`);
    const res = await request(app.getHttpServer()).post('/mcp').set(mcpHeaders(shallow)).send(text);
    expect(res.body.error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: 'Invalid params: "arguments" nest deeper than 64 levels',
    });
    expect(calls).toBe(before);
    // 64 levels are still served.
    const fine = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'echo', arguments: { deep: JSON.parse(nested(62)) } }),
    );
    expect(fine.body.result.isError).toBeUndefined();
  });

  it('answers a 100,000-deep 2025 reply with 400 -32600 (not a 503 retry signal)', async () => {
    const reply = `{"jsonrpc":"2.0","id":"srv-00000000-0000-0000-0000-000000000000","result":${nested(100_000)}}`;
    const res = await request(app.getHttpServer()).post('/mcp').set(sent(legacyHeaders())).send(reply);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest } });
  });

  it('refuses a 2025-era initialize without params (or without a protocolVersion) with -32602', async () => {
    for (const params of [undefined, {}, { protocolVersion: 20250618, capabilities: {} }]) {
      const res = await legacyPost(app, legacyRequest('initialize', params, 7));
      expect(res.body).toMatchObject({ id: 7, error: { code: ErrorCode.InvalidParams } });
    }
    const ok = await legacyPost(
      app,
      legacyRequest('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    );
    expect(ok.body.result.protocolVersion).toBe('2025-06-18');
  });

  it('answers an unauthenticated reply POST with id null, not the server’s srv- id', async () => {
    const issuer = await createTestIssuer();
    const guarded = await createApp([
      McpModule.forRoot({
        name: 'info',
        version: '1.0.0',
        auth: { resource: RESOURCE, authorizationServers: [ISSUER], jwt: { issuer: ISSUER, jwks: issuer.jwks } },
      }),
    ]);
    try {
      const reply = { jsonrpc: '2.0', id: 'srv-0c0ffee0-0000-4000-8000-000000000000', result: { action: 'accept' } };
      const res = await legacyPost(guarded, reply);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });
    } finally {
      await guarded.close();
    }
  });

  it('never makes a task on the 2025 leg: params.task and a declared tasks extension are ignored, tasks/get is -32601', async () => {
    const withExtension = { _meta: { [META_CLIENT_CAPABILITIES]: WITH_TASKS }, task: { ttl: 60_000 } };
    const optional = await legacyPost(
      app,
      legacyRequest('tools/call', { name: 'report', arguments: {}, ...withExtension }),
    );
    expect(optional.status).toBe(200);
    expect(optional.body.result).toEqual({ content: [{ type: 'text', text: 'report ready' }] });
    expect(optional.body.result.task).toBeUndefined();
    // A tool that runs only as a task cannot run here: the same -32021 as for any client without the extension.
    const required = await legacyPost(
      app,
      legacyRequest('tools/call', { name: 'batch', arguments: {}, ...withExtension }),
    );
    expect(required.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
    const poll = await legacyPost(app, legacyRequest('tasks/get', { taskId: 'any' }));
    expect(poll.body.error).toMatchObject({ code: ErrorCode.MethodNotFound, message: 'Method not found: tasks/get' });
  });
});
