import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { ErrorCode, MCPServer, McpModule } from '../../src/index.js';
import { challengeParams, ISSUER, RESOURCE } from '../support/auth-tokens.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';
import { closeListening, LiveResponse, listenOnLoopback } from '../support/sse-client.js';

const OBJECT = { type: 'object' } as const;
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const TOKENS: Record<string, object> = {
  reader: { sub: 'reader', scope: 'files:read' },
  other: { sub: 'other-reader', scope: 'files:read' },
  clerk: { sub: 'clerk', scope: 'files:read hr:read' },
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const listenBody = (id: string, notifications: Record<string, unknown>) =>
  mcpMessage('subscriptions/listen', { notifications }, { id });
const updated = (id: string, uri: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/resources/updated',
  params: { uri, _meta: { [SUBSCRIPTION_ID]: id } },
});
const toolsChanged = (id: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/tools/list_changed',
  params: { _meta: { [SUBSCRIPTION_ID]: id } },
});

describe('subscriptions/listen follows the caller\u2019s scopes (issue 17, items 5 and 6)', () => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let server: MCPServer;
  let url: string;
  const open: LiveResponse[] = [];

  async function listen(token: string, id: string, notifications: Record<string, unknown>): Promise<LiveResponse> {
    const live = await LiveResponse.post(url, listenBody(id, notifications), bearer(token));
    expect(live.status).toBe(200);
    expect(await live.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    open.push(live);
    return live;
  }

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRoot({
        name: 'files',
        version: '1.0.0',
        listen: { maxStreams: 6, maxStreamsPerCaller: 2, maxResourceSubscriptions: 3 },
        auth: {
          resource: RESOURCE,
          authorizationServers: [ISSUER],
          scopesSupported: ['files:read', 'hr:read'],
          verify: (t: string) => TOKENS[t],
        },
      }),
    ]);
    mcp = createMcpTestClient(app);
    server = app.get(MCPServer);
    server.addTool({ name: 'ping', description: 'Pings', inputSchema: OBJECT, handler: () => 'pong' });
    server.addResource({
      uri: 'file:///payroll.csv',
      name: 'payroll',
      requiredScopes: ['hr:read'],
      handler: () => 'salaries',
    });
    server.addResource({ uri: 'file:///readme.txt', name: 'readme', handler: () => 'hello' });
    url = await listenOnLoopback(app);
  });
  afterEach(async () => {
    for (const live of open.splice(0)) live.close();
    while (server.load.subscriptions > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  });
  afterAll(() => closeListening(app));

  it.each(['file:///payroll.csv', 'file:///%70ayroll.csv'])(
    'refuses a subscription to %s without its scope, with the step-up challenge',
    async (uri) => {
      const res = await mcp.post(
        listenBody('s', { resourceSubscriptions: ['file:///readme.txt', uri] }),
        bearer('reader'),
      );
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: ErrorCode.InsufficientScope,
        data: { requiredScopes: ['hr:read'] },
      });
      expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
        error: 'insufficient_scope',
        scope: 'hr:read',
      });
    },
  );

  it('delivers updates of a scoped resource to a caller who holds its scope', async () => {
    const live = await listen('clerk', 'c', { resourceSubscriptions: ['file:///payroll.csv'] });
    server.notifyResourceUpdated('file:///payroll.csv');
    expect(await live.next()).toEqual(updated('c', 'file:///payroll.csv'));
  });

  it('stops updates of a URI that became a scoped resource after the stream opened', async () => {
    const reader = await listen('reader', 'r', { resourceSubscriptions: ['file:///later.csv', 'file:///readme.txt'] });
    const clerk = await listen('clerk', 'c', { resourceSubscriptions: ['file:///later.csv'] });
    server.addResource({
      uri: 'file:///later.csv',
      name: 'later',
      requiredScopes: ['hr:read'],
      handler: () => 'later',
    });
    try {
      server.notifyResourceUpdated('file:///later.csv');
      server.notifyResourceUpdated('file:///readme.txt');
      expect(await clerk.next()).toEqual(updated('c', 'file:///later.csv'));
      // The reader's next message is the readme update: the later.csv one was never sent to it.
      expect(await reader.next()).toEqual(updated('r', 'file:///readme.txt'));
    } finally {
      server.removeResource('file:///later.csv');
    }
  });

  it('tells a caller of list changes only for primitives it can see', async () => {
    const reader = await listen('reader', 'r', {
      toolsListChanged: true,
      resourceSubscriptions: ['file:///readme.txt'],
    });
    const clerk = await listen('clerk', 'c', { toolsListChanged: true });
    server.addTool({
      name: 'payroll_report',
      description: 'HR only',
      inputSchema: OBJECT,
      requiredScopes: ['hr:read'],
      handler: () => 'report',
    });
    try {
      server.notifyResourceUpdated('file:///readme.txt');
      expect(await clerk.next()).toEqual(toolsChanged('c'));
      expect(await reader.next()).toEqual(updated('r', 'file:///readme.txt'));
      server.addTool({ name: 'echo', description: 'For everybody', inputSchema: OBJECT, handler: () => 'echo' });
      expect(await reader.next()).toEqual(toolsChanged('r'));
    } finally {
      server.removeTool('payroll_report');
      server.removeTool('echo');
    }
  });

  it('caps the streams of one caller, leaving room for the others', async () => {
    await listen('reader', 'r1', { toolsListChanged: true });
    const second = await listen('reader', 'r2', { toolsListChanged: true });
    const refused = await mcp.post(listenBody('r3', { toolsListChanged: true }), bearer('reader'));
    expect(refused.body.error).toMatchObject({
      code: ErrorCode.InternalError,
      message: 'Subscription limit reached for this caller (2 streams)',
    });
    await listen('other', 'o1', { toolsListChanged: true });
    // Closing one of the caller's streams gives its slot back.
    second.close();
    while (server.load.subscriptions > 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await listen('reader', 'r4', { toolsListChanged: true });
  });

  it('refuses more resourceSubscriptions than maxResourceSubscriptions with -32602', async () => {
    const uris = ['file:///a', 'file:///b', 'file:///c', 'file:///d'];
    const res = await mcp.post(listenBody('many', { resourceSubscriptions: uris }), bearer('clerk'));
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: ErrorCode.InvalidParams,
      message: 'Invalid params: resourceSubscriptions lists 4 URIs; at most 3 are accepted',
    });
    expect(server.load.subscriptions).toBe(0);
  });
});
