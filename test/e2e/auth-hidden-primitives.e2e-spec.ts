import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { ErrorCode, MCPServer, McpModule } from '../../src/index.js';
import { ISSUER, RESOURCE } from '../support/auth-tokens.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { closeListening, LiveResponse, listenOnLoopback } from '../support/sse-client.js';

const OBJECT = { type: 'object' } as const;
const TOKENS: Record<string, object> = { reader: { sub: 'reader', scope: 'files:read' } };
const bearer = { authorization: 'Bearer reader' };

async function appWith(hideForbidden: boolean | undefined): Promise<INestApplication> {
  const app = await createApp([
    McpModule.forRoot({
      name: 'files',
      version: '1.0.0',
      hideForbidden,
      auth: { resource: RESOURCE, authorizationServers: [ISSUER], verify: (t: string) => TOKENS[t] },
    }),
  ]);
  const server = app.get(MCPServer);
  server.addTool({ name: 'ping', description: 'Pings', inputSchema: OBJECT, handler: () => 'pong' });
  server.addTool({
    name: 'wipe',
    description: 'Admin only',
    inputSchema: OBJECT,
    requiredScopes: ['admin'],
    handler: () => 'wiped',
  });
  server.addPrompt({
    name: 'audit',
    arguments: [{ name: 'year' }],
    complete: { year: () => ['2026'] },
    requiredScopes: ['admin'],
    handler: () => 'audit',
  });
  server.addResource({
    uri: 'file:///payroll.csv',
    name: 'payroll',
    requiredScopes: ['hr:read'],
    handler: () => 'salaries',
  });
  server.addResourceTemplate({
    uriTemplate: 'hr:///{id}',
    name: 'hr',
    complete: { id: () => ['42'] },
    requiredScopes: ['hr:read'],
    handler: () => 'record',
  });
  return app;
}

/** What the client sees, with the name it asked for replaced, so a hidden and an unknown primitive compare equal. */
async function answer(app: INestApplication, method: string, params: Record<string, unknown>, name: string) {
  const res = await createMcpTestClient(app).post(mcpMessage(method, params), bearer);
  return {
    status: res.status,
    challenge: res.headers['www-authenticate'],
    body: JSON.stringify(res.body).split(name).join('<name>'),
  };
}

describe('Scoped primitives a caller may not use (issue 17, item 11)', () => {
  describe('by default: the step-up challenge names the scope', () => {
    let app: INestApplication;
    beforeAll(async () => (app = await appWith(undefined)));
    afterAll(() => app.close());

    it('answers 403 insufficient_scope for a tool, a prompt, a resource and a completion', async () => {
      for (const [method, params] of [
        ['tools/call', { name: 'wipe', arguments: {} }],
        ['prompts/get', { name: 'audit' }],
        ['resources/read', { uri: 'file:///payroll.csv' }],
        [
          'completion/complete',
          { ref: { type: 'ref/resource', uri: 'hr:///{id}' }, argument: { name: 'id', value: '' } },
        ],
      ] as const) {
        const res = await createMcpTestClient(app).post(mcpMessage(method, params), bearer);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe(ErrorCode.InsufficientScope);
      }
    });
  });

  describe('with hideForbidden: indistinguishable from a primitive that does not exist', () => {
    let app: INestApplication;
    beforeAll(async () => (app = await appWith(true)));
    afterAll(() => closeListening(app));

    it.each([
      ['a tool', 'tools/call', (name: string) => ({ name, arguments: {} }), 'wipe', 'no_such_tool'],
      ['a prompt', 'prompts/get', (name: string) => ({ name }), 'audit', 'no_such_prompt'],
      ['a resource', 'resources/read', (uri: string) => ({ uri }), 'file:///payroll.csv', 'file:///nothing/here.csv'],
      [
        'a prompt completion',
        'completion/complete',
        (name: string) => ({ ref: { type: 'ref/prompt', name }, argument: { name: 'year', value: '' } }),
        'audit',
        'nope',
      ],
      [
        'a template completion',
        'completion/complete',
        (uri: string) => ({ ref: { type: 'ref/resource', uri }, argument: { name: 'id', value: '' } }),
        'hr:///{id}',
        'none:///{id}',
      ],
    ])(
      'answers %s the caller lacks scopes for exactly as an unknown one',
      async (_label, method, params, hidden, unknown) => {
        const forbidden = await answer(app, method, params(hidden), hidden);
        expect(forbidden).toEqual(await answer(app, method, params(unknown), unknown));
        expect(forbidden.status).not.toBe(403);
        expect(forbidden.challenge).toBeUndefined();
      },
    );

    it('acknowledges a subscription to a hidden resource like one to an unknown URI, and tells it nothing', async () => {
      const url = await listenOnLoopback(app);
      const body = mcpMessage(
        'subscriptions/listen',
        { notifications: { resourceSubscriptions: ['file:///payroll.csv', 'file:///unknown.csv'] } },
        { id: 'l' },
      );
      const live = await LiveResponse.post(url, body, bearer);
      expect(live.status).toBe(200);
      expect(await live.next()).toMatchObject({
        params: { notifications: { resourceSubscriptions: ['file:///payroll.csv', 'file:///unknown.csv'] } },
      });
      app.get(MCPServer).notifyResourceUpdated('file:///payroll.csv');
      app.get(MCPServer).notifyResourceUpdated('file:///unknown.csv');
      expect(await live.next()).toMatchObject({
        method: 'notifications/resources/updated',
        params: { uri: 'file:///unknown.csv' },
      });
      live.close();
    });
  });
});
