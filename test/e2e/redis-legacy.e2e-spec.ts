import 'reflect-metadata';
import { jest } from '@jest/globals';
import { McpHttpDriver } from '../../src/core/index.js';
import type { McpContext } from '../../src/index.js';
import { legacyHeaders, legacyRequest, postReply } from '../support/legacy-client.js';
import { FleetInstance, startFleetInstance, until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, RedisServerProcess, testKeyPrefix } from '../support/redis-server.js';
import { LiveResponse } from '../support/sse-client.js';

// Real Redis servers, started and killed, and several Nest apps in one process.
jest.setTimeout(30_000);

const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const answer = (name: string) => ({ result: { action: 'accept', content: { name } } });

function addAskName(instance: FleetInstance): void {
  instance.server.registerTool(
    'ask_name',
    'Asks a name, then greets',
    { type: 'object' },
    async (_args: unknown, _answers: unknown, ctx: McpContext) => {
      const reply = await ctx.elicit('What is your name?', NAME_FORM, { key: 'user_name' });
      return `Hello, ${String(reply.content?.name)}!`;
    },
  );
}

/** A 2025-era call to `caller`, up to the elicitation request it sends on the call's stream. */
async function askedOn(
  caller: FleetInstance,
): Promise<{ live: LiveResponse; id: string; asked: Record<string, unknown> }> {
  const body = legacyRequest('tools/call', { name: 'ask_name', arguments: {} });
  const live = await LiveResponse.post(caller.url, body, legacyHeaders());
  const asked = await live.next();
  expect(asked).toMatchObject({ method: 'elicitation/create', params: { message: 'What is your name?' } });
  return { live, id: String(body.id), asked };
}

const waiting = (instance: FleetInstance) => instance.app.get(McpHttpDriver).legacy?.waiting ?? 0;

describe("nestjs-mcp/redis: a 2025-era client's reply reaches the waiting call wherever it lands", () => {
  const keyPrefix = testKeyPrefix();
  let a: FleetInstance;
  let b: FleetInstance;
  let c: FleetInstance;

  beforeAll(async () => {
    [a, b, c] = await Promise.all([0, 1, 2].map(() => startFleetInstance({ url: MACHINE_REDIS_URL, keyPrefix })));
    [a, b, c].forEach(addAskName);
    await until(() => [a, b, c].every((instance) => instance.backends.listening), 'every instance listens on Redis');
  });

  afterAll(() => Promise.all([a, b, c].map((instance) => instance?.close())));

  it('completes a call made on A whose elicitation reply is POSTed to B, and refuses the same reply on C', async () => {
    const { live, id, asked } = await askedOn(a);
    const reply = { jsonrpc: '2.0', id: asked.id, ...answer('Ada') };
    expect((await postReply(b.url, reply)).status).toBe(202);
    const response = await live.next();
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: Number(id),
      result: { content: [{ type: 'text', text: 'Hello, Ada!' }] },
    });
    live.close();
    // Answered once: a second copy, on any instance, finds nothing waiting.
    expect((await postReply(c.url, reply)).status).toBe(400);
    expect((await postReply(a.url, reply)).status).toBe(400);
    expect([a, b, c].map(waiting)).toEqual([0, 0, 0]);
  });

  it('lets exactly one of several copies of a reply, sent to every instance at once, through', async () => {
    const { live, asked } = await askedOn(b);
    const reply = { jsonrpc: '2.0', id: asked.id, ...answer('Grace') };
    const statuses = await Promise.all(
      [a, c, b, a, c].map((instance) => postReply(instance.url, reply).then((r) => r.status)),
    );
    expect(statuses.filter((status) => status === 202)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(4);
    expect(((await live.next()).result as { content: Array<{ text: string }> }).content[0].text).toBe('Hello, Grace!');
    live.close();
  });

  it('forgets a request whose client went away, on every instance', async () => {
    const { live, asked } = await askedOn(c);
    expect(waiting(c)).toBe(1);
    live.close();
    await until(() => waiting(c) === 0, 'the withdrawn request is gone from C');
    expect((await postReply(a.url, { jsonrpc: '2.0', id: asked.id, ...answer('Eve') })).status).toBe(400);
  });
});

describe('nestjs-mcp/redis: 2025-era rounds while Redis is down', () => {
  it('ends the call with a tool error naming Redis, answers a reply POST with 503, and routes again once Redis is back', async () => {
    const redis = await RedisServerProcess.onFreePort();
    const keyPrefix = testKeyPrefix();
    const instances: FleetInstance[] = [];
    try {
      await redis.start();
      const [a, b] = [
        await startFleetInstance({ url: redis.url, keyPrefix }),
        await startFleetInstance({ url: redis.url, keyPrefix }),
      ];
      instances.push(a, b);
      [a, b].forEach(addAskName);
      await until(() => a.backends.listening && b.backends.listening, 'both listen');
      const before = await askedOn(a);

      await redis.kill();
      await until(() => !a.connections.ready && !b.connections.ready, 'both saw the crash');
      // The reply cannot be routed: the client learns it is the server's fault, and may send it again.
      const refused = await postReply(b.url, { jsonrpc: '2.0', id: before.asked.id, ...answer('Ada') });
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body).error).toMatchObject({
        code: -32603,
        message: expect.stringMatching(/^Redis is unavailable \(deliver a client reply\)/),
      });
      // A new call cannot register its request: it ends at once as a tool error saying why, as any call whose
      // input cannot be had does on this leg.
      const call = legacyRequest('tools/call', { name: 'ask_name', arguments: {} });
      const sent = Object.entries(legacyHeaders()).filter((entry): entry is [string, string] => entry[1] !== undefined);
      const failed = await fetch(a.url, { method: 'POST', headers: sent, body: JSON.stringify(call) });
      expect(failed.status).toBe(200);
      expect(await failed.json()).toEqual({
        jsonrpc: '2.0',
        id: call.id,
        result: {
          isError: true,
          content: [
            { type: 'text', text: expect.stringMatching(/^Redis is unavailable \(register a server request\)/) },
          ],
        },
      });
      before.live.close();

      await redis.start();
      await until(
        () => [a, b].every((instance) => instance.backends.listening && instance.connections.ready),
        'both listen and take commands again',
      );
      const after = await askedOn(a);
      expect((await postReply(b.url, { jsonrpc: '2.0', id: after.asked.id, ...answer('Lin') })).status).toBe(202);
      expect(((await after.live.next()).result as { content: Array<{ text: string }> }).content[0].text).toBe(
        'Hello, Lin!',
      );
      after.live.close();
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
      await redis.kill();
    }
  });
});
