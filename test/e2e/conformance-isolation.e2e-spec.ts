import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { mcpMessage } from '../../src/testing/index.js';
import {
  eraHeaders,
  legacyInitialize,
  modernHeaders,
  notificationsOf,
  rawPost,
  replyTo,
  startFixture,
} from '../support/conformance-fixture.js';
import { HTTP_ADAPTERS } from '../support/create-app.js';
import { legacyRequest } from '../support/legacy-client.js';
import { closeListening } from '../support/sse-client.js';

/**
 * The referee's unreleased `session-isolation` (with its notification variants), `json-rpc-batch-rejection` and
 * `server-sessionless` against the conformance fixture, one test per check, named after it, on both 2025-era legs
 * (stateless, and with sessions: `MCP_LEGACY=stateful`) where the scenario speaks 2025, and with the 2025 era off
 * (`MCP_LEGACY=off`) for the checks that apply only to a server without it.
 */
const LEGS = { stateless: {}, stateful: { MCP_LEGACY: 'stateful' } };
// The isolation scenario's clients say 2025-11-25 in `initialize` and 2025-03-26 in the header.
const ISOLATION_HEADER_VERSION = '2025-03-26';

describe.each(HTTP_ADAPTERS)('the isolation scenarios against the fixture on %s', (adapter) => {
  describe.each(Object.keys(LEGS) as Array<keyof typeof LEGS>)('on the %s 2025-era leg', (leg) => {
    let app: INestApplication;
    let url: string;

    beforeAll(async () => {
      ({ app, url } = await startFixture(LEGS[leg], adapter));
    });
    afterAll(() => closeListening(app));

    const legacy = (body: unknown, session?: string | null) =>
      rawPost(url, body, eraHeaders(ISOLATION_HEADER_VERSION, session));
    const initialize = async (name: string) => {
      const init = await legacy(legacyInitialize(name));
      expect(init.status).toBe(200);
      expect(replyTo(init, 1)).toHaveProperty('result');
      const session = init.headers.get('mcp-session-id');
      expect(session === null).toBe(leg === 'stateless');
      const initialized = await legacy({ jsonrpc: '2.0', method: 'notifications/initialized', params: {} }, session);
      expect(initialized.status).toBe(202);
      return session;
    };
    const callTool = (name: string, session: string | null, meta?: Record<string, unknown>) =>
      legacy(legacyRequest('tools/call', { name, arguments: {}, ...(meta && { _meta: meta }) }, 2), session);
    const progressTokens = (reply: Awaited<ReturnType<typeof legacy>>) =>
      notificationsOf(reply, 'notifications/progress').map((p) => p.progressToken);

    it('session-isolation-init', async () => {
      const [a, b] = [await initialize('client-a'), await initialize('client-b')];
      if (leg === 'stateful') expect(a).not.toBe(b);
    });

    it('session-isolation', async () => {
      const [a, b] = [await initialize('client-a'), await initialize('client-b')];
      const text = callTool('test_simple_text', a);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [image, textReply] = [await callTool('test_image_content', b), await text];
      expect(replyTo(textReply, 2)).toMatchObject({ result: { content: [{ type: 'text' }] } });
      expect(replyTo(image, 2)).toMatchObject({ result: { content: [{ type: 'image' }] } });
    });

    it('notification-isolation', async () => {
      const [a, b] = [await initialize('client-a'), await initialize('client-b')];
      const first = callTool('test_tool_with_progress', a, { progressToken: 'client-a-progress' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const [replyB, replyA] = [
        await callTool('test_tool_with_progress', b, { progressToken: 'client-b-progress' }),
        await first,
      ];
      expect(progressTokens(replyA)).toEqual(['client-a-progress', 'client-a-progress', 'client-a-progress']);
      expect(progressTokens(replyB)).toEqual(['client-b-progress', 'client-b-progress', 'client-b-progress']);
      expect(replyTo(replyA, 2)).toHaveProperty('result');
      expect(replyTo(replyB, 2)).toHaveProperty('result');
    });

    it('notification-isolation-fuzz (10 clients)', async () => {
      const sessions: Array<string | null> = [];
      for (let i = 0; i < 10; i++) sessions.push(await initialize(`fuzz-${i}`));
      const replies = await Promise.all(
        sessions.map((session, i) =>
          callTool('test_tool_with_progress', session, { progressToken: `fuzz-client-${i}` }),
        ),
      );
      replies.forEach((reply, i) => {
        expect(progressTokens(reply)).toEqual(Array(3).fill(`fuzz-client-${i}`));
        expect(replyTo(reply, 2)).toHaveProperty('result');
      });
    });

    it('json-rpc-batch-rejected (2025-11-25)', async () => {
      const init = await rawPost(url, legacyInitialize('batch'), eraHeaders('2025-11-25'));
      // The scenario sends its batch on the session initialize opened; without sessions there is none to send.
      const session = init.headers.get('mcp-session-id');
      const batch = [
        { jsonrpc: '2.0', id: 901, method: 'ping', params: {} },
        { jsonrpc: '2.0', id: 902, method: 'ping', params: {} },
      ];
      const reply = await rawPost(url, batch, eraHeaders('2025-11-25', session));
      expect(reply.status).toBe(400);
      expect(reply.messages).toEqual([{ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) }]);
    });
  });

  describe('with the 2026-07-28 envelope', () => {
    let app: INestApplication;
    let url: string;

    beforeAll(async () => {
      ({ app, url } = await startFixture({}, adapter));
    });
    afterAll(() => closeListening(app));

    const send = (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
      const body = mcpMessage(method, params);
      return rawPost(url, body, { ...modernHeaders(body), ...headers });
    };

    it('json-rpc-batch-rejected (2026-07-28)', async () => {
      const batch = [mcpMessage('server/discover', {}, { id: 1 }), mcpMessage('tools/list', {}, { id: 2 })];
      const reply = await rawPost(url, batch, modernHeaders(batch[0]));
      expect(reply.status).toBe(400);
      expect(reply.messages).toEqual([{ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) }]);
    });

    it('sep-2567-server-accepts-requests-without-session-id', async () => {
      const reply = await send('server/discover');
      expect(reply.status).toBe(200);
      expect(replyTo(reply, 1)).toMatchObject({ result: { capabilities: expect.any(Object) } });
      expect(reply.headers.get('mcp-session-id')).toBeNull();
    });

    const lists = [
      ['tools', 'tools/list', 'name'],
      ['resources', 'resources/list', 'uri'],
      ['prompts', 'prompts/list', 'name'],
    ] as const;
    const collect = async (method: string, field: string, key: string) => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const reply = await send(method, cursor === undefined ? {} : { cursor });
        const result = replyTo(reply, 1)!.result as Record<string, unknown>;
        ids.push(...(result[field] as Array<Record<string, string>>).map((item) => item[key]));
        cursor = result.nextCursor as string | undefined;
      } while (cursor !== undefined);
      return ids.sort();
    };

    it.each(lists)('sep-2567-%s-list-connection-invariant', async (capability, method, key) => {
      const first = await collect(method, capability, key);
      await send('server/discover');
      for (const [other, otherMethod] of lists) if (other !== capability) await send(otherMethod);
      expect(first.length).toBeGreaterThan(0);
      expect(await collect(method, capability, key)).toEqual(first);
    });
  });

  describe('with the 2025 era off (MCP_LEGACY=off), where the sessionless SHOULDs apply', () => {
    let app: INestApplication;
    let url: string;

    beforeAll(async () => {
      ({ app, url } = await startFixture({ MCP_LEGACY: 'off' }, adapter));
    });
    afterAll(() => closeListening(app));

    const discover = (headers: Record<string, string> = {}) => {
      const body = mcpMessage('server/discover');
      return rawPost(url, body, { ...modernHeaders(body), ...headers });
    };

    it('answers no legacy initialize, so the referee applies the checks below', async () => {
      const reply = await rawPost(url, legacyInitialize('era-probe', 90001), {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      });
      expect(replyTo(reply, 90001)).not.toHaveProperty('result');
    });

    it('sep-2567-server-rejects-get-and-delete', async () => {
      expect((await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream' } })).status).toBe(405);
      expect((await fetch(url, { method: 'DELETE' })).status).toBe(405);
    });

    it('sep-2567-server-ignores-session-id', async () => {
      const reply = await discover({ 'mcp-session-id': 'conformance-stale-session-id' });
      expect(reply.status).toBe(200);
      expect(replyTo(reply, 1)).toHaveProperty('result');
      expect(reply.headers.get('mcp-session-id')).toBeNull();
    });

    it('sep-2567-server-ignores-last-event-id', async () => {
      const reply = await discover({ 'last-event-id': '42' });
      expect(reply.status).toBe(200);
      expect(replyTo(reply, 1)).toHaveProperty('result');
    });
  });
});
