import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { MCPServer, McpModule, type McpContext } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';
import { HeaderUserGuard } from '../support/header-user-guard.js';
import { legacyHeaders, legacyPost, legacyRequest } from '../support/legacy-client.js';
import { LiveResponse } from '../support/sse-client.js';

/**
 * Per-caller fair shares by default (security round 2, findings 3 and 7): with the global caps small, one
 * caller holding its whole share still leaves a second caller served; the first gets "Server busy" at once.
 */
describe('security round 2: per-caller fair shares', () => {
  let app: INestApplication;
  let url: string;
  const release: Array<() => void> = [];
  const started: string[] = [];

  beforeAll(async () => {
    app = await createApp(
      [
        McpModule.forRoot({
          name: 'shares',
          version: '1.0.0',
          limits: { maxConcurrentCalls: 4 },
          legacy: { maxWaitingCalls: 4 },
        }),
      ],
      [{ provide: APP_GUARD, useClass: HeaderUserGuard }],
    );
    const server = app.get(MCPServer);
    server.addTool({
      name: 'slow',
      description: 'Runs until the test releases it',
      inputSchema: { type: 'object', properties: { tag: { type: 'string' } } },
      handler: (args: { tag: string }) =>
        new Promise<string>((resolve) => {
          started.push(args.tag);
          release.push(() => resolve(`done ${args.tag}`));
        }),
    });
    server.addTool({
      name: 'confirm',
      description: 'Asks the user to confirm',
      inputSchema: { type: 'object' },
      handler: async (_args, _answers, ctx: McpContext) =>
        (await ctx.elicit('Sure?', { type: 'object', properties: {} })).action,
    });
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/mcp`;
  });
  afterAll(async () => {
    for (const free of release) free();
    await app.close();
  });

  const call = (user: string, tag: string) =>
    createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'slow', arguments: { tag } }), { 'x-user': user });

  it('finding 7: one caller at its share of concurrent calls (a quarter of 4) leaves room for another', async () => {
    const held = call('alice', 'a1').then((res) => res);
    while (!started.includes('a1')) await new Promise((resolve) => setImmediate(resolve));
    const refused = await call('alice', 'a2');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.error).toEqual({
      code: -32023,
      message: 'Server busy: this caller already has 1 requests running, retry later',
      data: { retryAfterMs: 1000 },
    });
    const other = call('bob', 'b1');
    while (!started.includes('b1')) await new Promise((resolve) => setImmediate(resolve));
    for (const free of release.splice(0)) free();
    expect((await other).body.result.content).toEqual([{ type: 'text', text: 'done b1' }]);
    expect((await held).body.result.content).toEqual([{ type: 'text', text: 'done a1' }]);
    expect(started).not.toContain('a2');
  });

  it('finding 3: one caller at its share of 2025-era waiting calls leaves another caller asked', async () => {
    const headers = { ...legacyHeaders(), 'x-user': 'alice' };
    const waiting = await LiveResponse.post(
      url,
      legacyRequest('tools/call', { name: 'confirm', arguments: {} }),
      headers,
    );
    try {
      expect(await waiting.next()).toMatchObject({ method: 'elicitation/create' });
      const refused = await legacyPost(app, legacyRequest('tools/call', { name: 'confirm', arguments: {} }), {
        'x-user': 'alice',
      });
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body.error).toEqual({
        code: -32023,
        message: 'Server busy: this caller already has 1 calls waiting for client input, retry later',
        data: { retryAfterMs: 1000 },
      });
      const other = await LiveResponse.post(url, legacyRequest('tools/call', { name: 'confirm', arguments: {} }), {
        ...legacyHeaders(),
        'x-user': 'bob',
      });
      try {
        expect(await other.next()).toMatchObject({ method: 'elicitation/create' });
      } finally {
        other.close();
      }
    } finally {
      waiting.close();
    }
  });
});
