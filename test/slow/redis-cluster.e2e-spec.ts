import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Cluster } from 'ioredis';
import type { McpContext } from '../../src/index.js';
import { mcpMessage } from '../../src/testing/index.js';
import { legacyHeaders, legacyPost, legacyRequest, postReply } from '../support/legacy-client.js';
import { RedisClusterProcesses } from '../support/redis-cluster.js';
import { FleetInstance, listenOn, postTo, readUntil, startFleetInstance, until } from '../support/redis-fleet.js';
import { testKeyPrefix } from '../support/redis-server.js';
import { EventStream, LiveResponse } from '../support/sse-client.js';
import { TaskJobs } from '../support/task-jobs.js';
import { createTask, getTask, taskRequest, waitForStatus, WITH_TASKS } from '../support/task-requests.js';

// A Redis Cluster of three processes the test starts, kills and restarts, and six Nest apps in one process.
jest.setTimeout(60_000);

const OBJECT = { type: 'object' } as const;
const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const CAPS = { clientCapabilities: { elicitation: {} } };

function addAskName(instance: FleetInstance): void {
  instance.server.registerTool(
    'ask_name',
    'Asks a name, then greets',
    OBJECT,
    async (_args: unknown, _answers: unknown, ctx: McpContext) => {
      const reply = await ctx.elicit('What is your name?', NAME_FORM, { key: 'user_name' });
      return `Hello, ${String(reply.content?.name)}!`;
    },
  );
}

describe('nestjs-mcp/redis on a Redis Cluster', () => {
  const keyPrefix = testKeyPrefix();
  const work = [new TaskJobs(), new TaskJobs(), new TaskJobs()];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let cluster: RedisClusterProcesses;
  let fleet: FleetInstance[] = [];
  let stateful: FleetInstance[] = [];

  /** The keys under the test's prefix that each node holds, by port. */
  async function keysByNode(): Promise<Map<number, string[]>> {
    const byNode = new Map<number, string[]>();
    for (const port of cluster.ports) {
      const listed = await cluster.cli(port, 'keys', `${keyPrefix}*`);
      byNode.set(port, listed ? listed.split('\n') : []);
    }
    return byNode;
  }

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    cluster = await RedisClusterProcesses.start();
    const options = { cluster: { nodes: cluster.nodes }, keyPrefix };
    fleet = await Promise.all([0, 1, 2].map(() => startFleetInstance(options)));
    fleet.forEach((instance, i) => work[i].tools().forEach((tool) => instance.server.addTool(tool)));
    fleet.forEach(addAskName);
    stateful = await Promise.all([0, 1, 2].map(() => startFleetInstance(options, true)));
    await until(
      () => [...fleet, ...stateful].every((instance) => instance.backends.listening),
      'every instance listens on the Cluster',
    );
  });

  afterAll(async () => {
    await Promise.all([...fleet, ...stateful].map((instance) => instance.close()));
    await cluster?.stop();
    process.off('unhandledRejection', onUnhandled);
  });

  it('shows a task created on A to B, and tasks/cancel on C stops the work on A', async () => {
    const [a, b, c] = fleet;
    const created = await createTask(a.app, 'long_job');
    expect(await getTask(b.app, created.taskId)).toMatchObject({ taskId: created.taskId, status: 'working' });
    await until(() => work[0].started === 1, 'the job runs on A');
    expect((await taskRequest(c.app, 'tasks/cancel', { taskId: created.taskId })).status).toBe(200);
    await until(() => work[0].stoppedBy !== undefined, "A's handler sees its signal fire");
    expect(await waitForStatus(b.app, created.taskId, 'cancelled')).toMatchObject({ status: 'cancelled' });
    expect(work.map((w) => w.started)).toEqual([1, 0, 0]);
  });

  it("tells a listen stream on B of a task's result on A, published by the script that stores it", async () => {
    const [, a, b] = fleet;
    const created = await createTask(a.app, 'long_job');
    await until(() => work[1].started === 1, 'the job runs on A');
    const stream = await LiveResponse.post(
      b.url,
      mcpMessage(
        'subscriptions/listen',
        { notifications: { taskIds: [created.taskId] } },
        { id: 'listen-tasks', clientCapabilities: WITH_TASKS },
      ),
    );
    try {
      expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged');
      work[1].done();
      const message = await stream.next();
      expect(message).toMatchObject({
        method: 'notifications/tasks',
        params: { taskId: created.taskId, status: 'completed' },
      });
    } finally {
      stream.close();
    }
  });

  it('keeps a task in one slot and its limits in another, and spreads many tasks over the nodes', async () => {
    const [a] = fleet;
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push((await createTask(a.app, 'long_job')).taskId);
    const byNode = await keysByNode();
    const records = ids.map((id) => `${keyPrefix}{task:fleet:${id}}`);
    const holding = [...byNode].filter(([, keys]) => records.some((record) => keys.includes(record)));
    expect(records.every((record) => [...byNode.values()].flat().includes(record))).toBe(true);
    expect(holding.length).toBeGreaterThan(1);
    // The limits of the server: its index and every owner's, in one slot of one node.
    const limits = `${keyPrefix}{tasks:fleet}`;
    const limitKeys = [...byNode.values()].flat().filter((key) => key.startsWith(limits));
    expect(limitKeys.length).toBeGreaterThan(1);
    const slots = new Set(await Promise.all(limitKeys.map((key) => cluster.slotOf(key))));
    expect(slots.size).toBe(1);
    for (const id of ids) await taskRequest(a.app, 'tasks/cancel', { taskId: id });
  });

  it('serves a 2025-era session made on A on B, streams it on C, and keeps its keys in one slot', async () => {
    const [a, b, c] = stateful;
    const opened = await legacyPost(
      a.app,
      legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: { roots: {} } }),
    );
    const session = opened.headers['mcp-session-id'];
    expect(session).toBeTruthy();
    const listed = await legacyPost(b.app, legacyRequest('tools/list'), { 'mcp-session-id': session });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('"add"');

    const stream = await EventStream.open(c.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
    });
    expect(stream.res.status).toBe(200);
    expect((await stream.next()).data).toBe('');
    a.server.addTool({ name: 'late', description: 'Added on A', inputSchema: OBJECT, handler: () => 'x' });
    expect(await stream.message()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

    const sessionKeys = [...(await keysByNode()).values()].flat().filter((key) => key.includes(`{session:${session}}`));
    expect(sessionKeys.length).toBeGreaterThan(1);
    const slots = new Set(await Promise.all(sessionKeys.map((key) => cluster.slotOf(key))));
    expect(slots.size).toBe(1);

    // Ended on B, for all: C's stream ends, and nothing of the session is left on any node.
    const ended = await fetch(b.url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(ended.status).toBe(200);
    await stream.finished;
    expect((await legacyPost(c.app, legacyRequest('tools/list'), { 'mcp-session-id': session })).status).toBe(404);
    await until(
      async () => ![...(await keysByNode()).values()].flat().some((key) => key.includes(`{session:${session}}`)),
      'the session is gone from every node',
    );
  });

  it("routes a 2025-era client's reply POSTed to B to the call waiting on A", async () => {
    const [a, b, c] = fleet;
    const body = legacyRequest('tools/call', { name: 'ask_name', arguments: {} });
    const live = await LiveResponse.post(a.url, body, legacyHeaders());
    const asked = await live.next();
    expect(asked).toMatchObject({ method: 'elicitation/create' });
    const reply = { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } };
    expect((await postReply(b.url, reply)).status).toBe(202);
    expect(await live.next()).toEqual({
      jsonrpc: '2.0',
      id: body.id,
      result: { content: [{ type: 'text', text: 'Hello, Ada!' }] },
    });
    live.close();
    expect((await postReply(c.url, reply)).status).toBe(400);
  });

  it('refuses on every instance a single-use request state redeemed on B', async () => {
    const [a, b, c] = fleet;
    const first = await postTo(a, mcpMessage('tools/call', { name: 'transfer', arguments: {} }, CAPS));
    expect(first.body.result.resultType).toBe('input_required');
    const retry = mcpMessage(
      'tools/call',
      {
        name: 'transfer',
        arguments: {},
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
        requestState: first.body.result.requestState,
      },
      CAPS,
    );
    expect((await postTo(b, retry)).body.result.content).toEqual([{ type: 'text', text: 'transferred' }]);
    for (const instance of [a, c]) {
      const replay = await postTo(instance, retry);
      expect(replay.status).toBe(400);
      expect(replay.body.error.data).toEqual({ reason: 'request_state_replayed' });
    }
  });

  it("takes the app's own Cluster as its connection, shares tasks with the fleet, and leaves it open at shutdown", async () => {
    const own = new Cluster(cluster.nodes);
    const instance = await startFleetInstance({ connection: own, keyPrefix });
    try {
      await until(() => instance.backends.listening, 'the instance listens on its duplicate');
      new TaskJobs().tools().forEach((tool) => instance.server.addTool(tool));
      const created = await createTask(instance.app, 'long_job');
      expect(await getTask(fleet[1].app, created.taskId)).toMatchObject({ status: 'working' });
      expect((await taskRequest(fleet[2].app, 'tasks/cancel', { taskId: created.taskId })).status).toBe(200);
    } finally {
      await instance.close();
    }
    expect(own.status).toBe('ready');
    expect(await own.ping()).toBe('PONG');
    own.disconnect();
  });

  it('fails the calls that need a restarted node with a JSON-RPC error, and works end to end once it is back', async () => {
    const [a, b, c] = fleet;
    // The node where the most instances have their pub/sub connection (six instances, three nodes: at least two).
    const subscribed = await Promise.all(
      cluster.ports.map(
        async (port) =>
          (await cluster.cli(port, 'client', 'list')).split('\n').filter((line) => / sub=[1-9]/.test(line)).length,
      ),
    );
    expect(Math.max(...subscribed)).toBeGreaterThan(0);
    const down = cluster.ports[subscribed.indexOf(Math.max(...subscribed))];
    // A task and a 2025-era session whose keys are on that node.
    let task: string | undefined;
    while (!task) {
      const id = String((await createTask(a.app, 'long_job')).taskId);
      if ((await cluster.nodeOf(`${keyPrefix}{task:fleet:${id}}`)) === down) task = id;
      else await taskRequest(a.app, 'tasks/cancel', { taskId: id });
    }
    let session: string | undefined;
    while (!session) {
      const opened = await legacyPost(
        stateful[0].app,
        legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: {} }),
      );
      const id = String(opened.headers['mcp-session-id']);
      if ((await cluster.nodeOf(`${keyPrefix}{session:${id}}`)) === down) session = id;
    }
    const watching = await listenOn(c, []);
    expect((await watching.next()).method).toBe('notifications/subscriptions/acknowledged');
    await cluster.kill(down);
    // Changes published while an instance's pub/sub connection moved to another node may be lost: its streams are
    // told to fetch the lists again.
    expect((await watching.next()).method).toBe('notifications/tools/list_changed');
    watching.close();

    const refused = await taskRequest(b.app, 'tasks/get', { taskId: task });
    // A JSON-RPC error, as for any call on a single Redis that is down: no 500, no stack, no wait past the timeout.
    expect(refused.status).toBe(200);
    expect(refused.body.error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^Redis is unavailable \(read a task\)/),
    });
    const lost = await legacyPost(stateful[1].app, legacyRequest('tools/list'), { 'mcp-session-id': session });
    expect(lost.status).toBe(503);
    expect(lost.body.error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(
        /^Service Unavailable: the session store cannot be reached \(Redis is unavailable/,
      ),
    });
    // What needs no Redis goes on.
    expect(
      (await postTo(b, mcpMessage('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }))).body.result,
    ).toMatchObject({ content: [{ type: 'text', text: '3' }] });

    await cluster.restart(down);
    let created: Record<string, any> | undefined;
    await until(async () => {
      created = (await taskRequest(a.app, 'tools/call', { name: 'long_job', arguments: {} })).body.result;
      return created !== undefined;
    }, 'a task can be created again');
    expect(await getTask(b.app, created!.taskId)).toMatchObject({ status: 'working' });
    expect((await taskRequest(c.app, 'tasks/cancel', { taskId: created!.taskId })).status).toBe(200);
    expect(await waitForStatus(b.app, created!.taskId, 'cancelled')).toMatchObject({ status: 'cancelled' });
    // The node came back empty (nothing persisted): the task and the session it held are gone, on every instance.
    expect((await taskRequest(c.app, 'tasks/get', { taskId: task })).body.error).toMatchObject({ code: -32602 });
    expect((await legacyPost(stateful[2].app, legacyRequest('tools/list'), { 'mcp-session-id': session })).status).toBe(
      404,
    );
    // Every instance hears the others again, those whose pub/sub connection was on the restarted node included.
    const all = [...fleet, ...stateful];
    for (const [i, listener] of all.entries()) {
      const uri = `test://after-restart-${i}`;
      const stream = await listenOn(listener, [uri]);
      expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged');
      all[(i + 1) % all.length].server.notifyResourceUpdated(uri);
      expect(await readUntil(stream, uri)).toEqual([`notifications/resources/updated ${uri}`]);
      stream.close();
    }
    expect(unhandled).toEqual([]);
  });
});
