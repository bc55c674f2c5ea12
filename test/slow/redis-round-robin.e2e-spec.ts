import 'reflect-metadata';
import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { FixtureProcess } from '../support/fixture-process.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { until } from '../support/redis-fleet.js';
import { RoundRobinProxy } from '../support/round-robin-proxy.js';

// Real Redis servers, started, killed and restarted, on a machine shared with other work.
jest.setTimeout(30_000);

/** The tools one instance lists, asked directly (past the proxy). */
async function toolNames(origin: string): Promise<string[]> {
  const body = mcpMessage('tools/list');
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: mcpHeaders(body),
    body: JSON.stringify(body),
  });
  const { result } = (await response.json()) as { result: { tools: Array<{ name: string }> } };
  return result.tools.map((tool) => tool.name);
}

/**
 * Three instances of the conformance fixture as separate processes, sharing the machine's Redis and one
 * request-state secret, behind a round-robin proxy with no affinity: the official client, talking to the
 * proxy, cannot tell them from one server.
 */
describe('three instances behind a round-robin proxy (the official client, 2026-07-28 and 2025-era)', () => {
  const keyPrefix = testKeyPrefix();
  let fixtures: FixtureProcess[] = [];
  let proxy: RoundRobinProxy;
  let client: Client;
  const elicited: string[] = [];

  beforeAll(async () => {
    const env = {
      REDIS_URL: MACHINE_REDIS_URL,
      REDIS_KEY_PREFIX: keyPrefix,
      MCP_STATE_SECRET: randomBytes(32).toString('hex'),
    };
    fixtures = await Promise.all([0, 1, 2].map(() => FixtureProcess.start(env)));
    proxy = await RoundRobinProxy.start(fixtures.map((fixture) => fixture.origin));
    client = new Client(
      { name: 'cluster-e2e', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      elicited.push(request.params.message);
      return { action: 'accept', content: { name: 'Alice' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.origin}/mcp`)));
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await Promise.all(fixtures.map((fixture) => fixture.stop()));
    const inspector = new Redis(MACHINE_REDIS_URL);
    const keys = await inspector.keys(`${keyPrefix}*`);
    if (keys.length > 0) await inspector.del(...keys);
    inspector.disconnect();
  });

  it('answers every request whichever instance gets it', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    for (let i = 0; i < 3; i++) {
      const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
      expect(result.isError).toBeFalsy();
    }
    expect(proxy.counts.every((count) => count > 0)).toBe(true);
  });

  it('completes a multi-round input_required call whose rounds land on different instances', async () => {
    const before = [...proxy.counts];
    const result = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Alice!' }]);
    expect(elicited).toEqual(['What is your name?']);
    // Two rounds, two POSTs, and round-robin sent them to two different instances.
    expect(proxy.counts.filter((count, i) => count > before[i])).toHaveLength(2);
  });

  it('tells a listen stream of a change made on another instance, and every instance applies the change', async () => {
    const changes: string[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes.push('tools/list_changed');
    });
    const subscription = await client.listen({ toolsListChanged: true });
    try {
      const added = await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
      expect(added.content).toEqual([{ type: 'text', text: 'Added test_dynamic_tool' }]);
      // The fixture applies a trigger on every instance (registries are per instance), and each instance's
      // change reaches the stream once: three notifications, whichever instance holds the stream.
      await until(() => changes.length === 3, 'a notification from every instance');
      for (const fixture of fixtures) expect(await toolNames(fixture.origin)).toContain('test_dynamic_tool');

      const removed = await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
      expect(removed.content).toEqual([{ type: 'text', text: 'Removed test_dynamic_tool' }]);
      await until(() => changes.length === 6, 'the removal from every instance');
      for (const fixture of fixtures) expect(await toolNames(fixture.origin)).not.toContain('test_dynamic_tool');
    } finally {
      await subscription.close();
    }
  });

  it("completes a 2025-era client's elicitation whose reply lands on another instance than the waiting call", async () => {
    const legacy = new Client(
      { name: 'cluster-e2e-2025', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' } },
    );
    const asked: string[] = [];
    legacy.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(`${proxy.origin}/mcp`)));
    try {
      expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const before = [...proxy.counts];
      const result = await legacy.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
      expect(result.content).toEqual([
        {
          type: 'text',
          text: 'User response: <action: accept, content: {"username":"ada","email":"ada@example.com"}>',
        },
      ]);
      expect(asked).toEqual(['Who are you?']);
      // The call and the reply were two POSTs, so round-robin put them on two different instances.
      expect(proxy.counts.filter((count, i) => count > before[i]).length).toBeGreaterThanOrEqual(2);
    } finally {
      await legacy.close();
    }
  });
});
