import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer } from '../../src/index.js';
import { mcpMessage } from '../../src/testing/index.js';
import {
  eraHeaders,
  modernHeaders,
  notificationsOf,
  rawPost,
  replyTo,
  startFixture,
  type RawReply,
} from '../support/conformance-fixture.js';
import { HTTP_ADAPTERS } from '../support/create-app.js';
import { legacyRequest } from '../support/legacy-client.js';
import { closeListening, EventStream } from '../support/sse-client.js';

/**
 * The referee's unreleased stream scenarios against the conformance fixture, one test per check, named after it:
 * `http-stream-cancellation` and `per-request-loglevel` (2026-07-28), `progress-notifications` (both eras) and
 * `cancellation` (the 2025-era `notifications/cancelled`).
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(HTTP_ADAPTERS)('the stream scenarios against the fixture on %s', (adapter) => {
  let app: INestApplication;
  let url: string;
  /** When each test_tool_slow call ended, by request id: what shows its ctx.signal stopped the work. */
  const slowEnded = new Map<unknown, number>();

  beforeAll(async () => {
    ({ app, url } = await startFixture({}, adapter));
    app.get(MCPServer).intercept(async (call, next) => {
      const response = await next();
      if (call.name === 'test_tool_slow') slowEnded.set(call.requestId, Date.now());
      return response;
    });
  });
  afterAll(() => closeListening(app));

  const modern = (method: string, params: Record<string, unknown>, id: number, meta?: Record<string, unknown>) => {
    const body = mcpMessage(method, params, { id, meta });
    return rawPost(url, body, modernHeaders(body));
  };
  const fastIsHealthy = async (id: number) => {
    const reply = await modern('tools/call', { name: 'test_tool_fast', arguments: {} }, id);
    expect(reply.status).toBe(200);
    expect(replyTo(reply, id)).toMatchObject({ result: { content: [{ type: 'text' }] } });
  };
  const openSlow = (id: number, meta?: Record<string, unknown>) => {
    const body = mcpMessage('tools/call', { name: 'test_tool_slow', arguments: { durationMs: 10_000 } }, { id, meta });
    return EventStream.open(url, { method: 'POST', headers: modernHeaders(body), body: JSON.stringify(body) });
  };

  describe('http-stream-cancellation', () => {
    it('http-stream-cancel-closes-request', async () => {
      const stream = await openSlow(101);
      expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      // An event (a data field) within the 3 s the referee waits, though the call asked for no progress.
      const first = await Promise.race([stream.next(), sleep(3_000).then(() => undefined)]);
      expect(first).toEqual({ data: '' });
      const closedAt = Date.now();
      stream.close();
      await sleep(500);
      expect(slowEnded.get(101)).toBeGreaterThanOrEqual(closedAt);
      expect(slowEnded.get(101)! - closedAt).toBeLessThan(500);
      await fastIsHealthy(102);
    });

    it('http-stream-cancel-server-health', async () => {
      await fastIsHealthy(103);
    });

    it('http-stream-cancel-rapid-burst', async () => {
      for (let i = 0; i < 5; i++) (await openSlow(110 + i)).close();
      await sleep(300);
      await fastIsHealthy(120);
      for (let i = 0; i < 5; i++) expect(slowEnded.has(110 + i)).toBe(true);
    });

    it('test_tool_slow streams increasing progress when the call gives a progress token', async () => {
      const stream = await openSlow(130, { progressToken: 'slow-1' });
      expect(await stream.next()).toEqual({ data: '' });
      const progress = [await stream.message(), await stream.message()];
      stream.close();
      expect(progress.map((m) => m.params)).toEqual([
        { progressToken: 'slow-1', progress: 500, total: 10_000 },
        { progressToken: 'slow-1', progress: 1_000, total: 10_000 },
      ]);
    });
  });

  describe('per-request-loglevel', () => {
    const logged = async (level: string, id: number) =>
      modern('tools/call', { name: 'test_logging_tool', arguments: {} }, id, {
        'io.modelcontextprotocol/logLevel': level,
      });

    it('per-request-loglevel-positive-emission', async () => {
      const reply = await logged('debug', 201);
      expect(notificationsOf(reply, 'notifications/message').map((m) => m.level)).toEqual([
        'debug',
        'info',
        'warning',
        'error',
      ]);
      expect(replyTo(reply, 201)).toHaveProperty('result');
    });

    it('per-request-loglevel-severity-filtering', async () => {
      const reply = await logged('error', 202);
      expect(notificationsOf(reply, 'notifications/message').map((m) => m.level)).toEqual(['error']);
    });

    it('per-request-loglevel-invalid-rejection', async () => {
      const reply = await logged('banana', 203);
      expect(reply.status).toBe(400);
      expect(replyTo(reply, 203)).toMatchObject({ error: { code: -32602 } });
    });

    it('per-request-loglevel-request-scoped', async () => {
      const [withLevel, without] = await Promise.all([
        logged('debug', 204),
        modern('tools/call', { name: 'test_tool_fast', arguments: {} }, 205),
      ]);
      expect(notificationsOf(withLevel, 'notifications/message')).toHaveLength(4);
      expect(notificationsOf(without, 'notifications/message')).toEqual([]);
      expect(replyTo(without, 205)).toHaveProperty('result');
    });
  });

  const progressCall = {
    '2026-07-28': (id: number, meta?: Record<string, unknown>) =>
      modern('tools/call', { name: 'test_tool_with_progress', arguments: {} }, id, meta),
    '2025-11-25': (id: number, meta?: Record<string, unknown>) =>
      rawPost(
        url,
        legacyRequest(
          'tools/call',
          { name: 'test_tool_with_progress', arguments: {}, ...(meta && { _meta: meta }) },
          id,
        ),
        eraHeaders('2025-11-25'),
      ),
  };

  describe.each(Object.keys(progressCall) as Array<keyof typeof progressCall>)(
    'progress-notifications at %s',
    (era) => {
      const progressOf = (reply: RawReply) => notificationsOf(reply, 'notifications/progress');

      it('progress-values-non-decreasing', async () => {
        const updates = progressOf(await progressCall[era](301, { progressToken: 'progress-ordering-test' }));
        expect(updates.length).toBeGreaterThanOrEqual(3);
        for (let i = 1; i < updates.length; i++)
          expect(updates[i].progress as number).toBeGreaterThan(updates[i - 1].progress as number);
        for (const update of updates) expect(update.progress as number).toBeLessThanOrEqual(update.total as number);
      });

      it('progress-token-matches-request', async () => {
        const updates = progressOf(await progressCall[era](302, { progressToken: 'unique-token-match-test-42' }));
        expect(updates.length).toBeGreaterThan(0);
        expect(new Set(updates.map((u) => u.progressToken))).toEqual(new Set(['unique-token-match-test-42']));
      });

      it('progress-no-token-no-notifications', async () => {
        const reply = await progressCall[era](303);
        expect(progressOf(reply)).toEqual([]);
        expect(replyTo(reply, 303)).toHaveProperty('result');
      });

      it('progress-ceases-after-completion', async () => {
        const reply = await progressCall[era](304, { progressToken: 'cessation-test-token' });
        // The reply is the stream's last message: nothing for the token follows the result.
        expect(reply.messages.at(-1)).toMatchObject({ id: 304, result: expect.any(Object) });
        expect(progressOf(reply)).toHaveLength(3);
      });
    },
  );

  describe('cancellation (2025-era notifications/cancelled)', () => {
    const legacy = (body: Record<string, unknown>) => rawPost(url, body, eraHeaders('2025-11-25'));
    const cancelled = (requestId: unknown, reason: string) =>
      legacy({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } });
    const fastAnswers = async (id: number) => {
      const reply = await legacy(legacyRequest('tools/call', { name: 'test_tool_fast', arguments: {} }, id));
      expect(replyTo(reply, id)).toMatchObject({ result: { content: [{ type: 'text' }] } });
    };

    it('cancellation-unknown-request-stability', async () => {
      expect((await cancelled('nonexistent-request-99999', 'Testing unknown request cancellation')).status).toBe(202);
      await fastAnswers(401);
    });

    it('cancellation-in-progress-request', async () => {
      const slow = legacy(
        legacyRequest('tools/call', { name: 'test_tool_slow', arguments: { durationMs: 10_000 } }, 1),
      );
      await sleep(1_000);
      expect((await cancelled(1, 'Client no longer needs this result')).status).toBe(202);
      await fastAnswers(402);
      slow.catch(() => undefined);
    });

    it('cancellation-rapid-burst-stability', async () => {
      for (let i = 0; i < 5; i++)
        expect((await cancelled(`burst-cancel-${i}`, 'Rapid cancellation burst')).status).toBe(202);
      await fastAnswers(403);
    });
  });
});
