import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer, McpModule } from '../../src/index.js';
import type { McpBusEvent } from '../../src/core/index.js';
import { MCP_KERNEL } from '../../src/nest/mcp.constants.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { closeListening, LiveResponse, listenOnLoopback } from '../support/sse-client.js';
import { InProcessEventBus, type McpKernel } from '../../src/core/index.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The in-process bus, counting live subscribers so a test can see a stream let go of it. */
class CountingBus extends InProcessEventBus {
  live = 0;
  private released: Array<() => void> = [];

  override subscribe(listener: (event: McpBusEvent) => void): () => void {
    this.live++;
    const unsubscribe = super.subscribe(listener);
    return () => {
      unsubscribe();
      this.live--;
      for (const resolve of this.released.splice(0)) resolve();
    };
  }

  /** Resolves the next time a subscriber lets go. */
  nextRelease(): Promise<void> {
    return new Promise((resolve) => this.released.push(resolve));
  }
}

describe('subscriptions/listen over HTTP/SSE', () => {
  let app: INestApplication;
  let server: MCPServer;
  let url: string;
  const bus = new CountingBus();
  const open: LiveResponse[] = [];

  const listen = async (
    notifications: Record<string, unknown>,
    id: string | number = 'sub-1',
  ): Promise<LiveResponse> => {
    const live = await LiveResponse.post(url, mcpMessage('subscriptions/listen', { notifications }, { id }));
    open.push(live);
    return live;
  };

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'listen', version: '1.0.0', listen: { eventBus: bus } })]);
    server = app.get(MCPServer);
    server.addTool({ name: 'base', description: 'Always there', inputSchema: { type: 'object' }, handler: () => 'x' });
    server.addPrompt({ name: 'base_prompt', description: 'Always there', handler: () => 'x' });
    server.addResource({ uri: 'doc://a', name: 'a', handler: () => 'a' });
    url = await listenOnLoopback(app);
  });
  afterEach(async () => {
    for (const live of open.splice(0)) live.close();
    // Each test starts with no stream left over, so counts below are exact.
    while (bus.live > 0) await bus.nextRelease();
  });
  afterAll(() => closeListening(app));

  it('acknowledges first, with the honoured filter and the subscription id', async () => {
    const live = await listen({ toolsListChanged: true, promptsListChanged: true, unknownKind: true }, 'sub-ack');
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await live.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, promptsListChanged: true },
        _meta: { [SUBSCRIPTION_ID]: 'sub-ack' },
      },
    });
  });

  it('sends tools/list_changed when the tool registry changes, tagged with the subscription id', async () => {
    const live = await listen({ toolsListChanged: true }, 42);
    await live.next();
    server.addTool({ name: 'added', description: 'Added later', inputSchema: { type: 'object' }, handler: () => 'y' });
    server.removeTool('added');
    expect(await live.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: 42 } },
    });
    expect(await live.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: 42 } },
    });
  });

  it('sends only the kinds the client asked for', async () => {
    const live = await listen({ promptsListChanged: true });
    expect((await live.next()).params).toMatchObject({ notifications: { promptsListChanged: true } });
    server.addTool({
      name: 'unrequested',
      description: 'Not for this stream',
      inputSchema: { type: 'object' },
      handler: () => 'z',
    });
    server.removeTool('unrequested');
    server.addPrompt({ name: 'requested', description: 'For this stream', handler: () => 'p' });
    server.removePrompt('requested');
    // Delivery is synchronous and in order, so a leaked tools notification would arrive before these.
    expect((await live.next()).method).toBe('notifications/prompts/list_changed');
    expect((await live.next()).method).toBe('notifications/prompts/list_changed');
  });

  it('sends resources/updated for a subscribed URI only, and resources/list_changed when asked', async () => {
    const live = await listen({ resourceSubscriptions: ['doc://a'], resourcesListChanged: true }, 'res');
    expect((await live.next()).params).toMatchObject({
      notifications: { resourceSubscriptions: ['doc://a'], resourcesListChanged: true },
    });
    server.notifyResourceUpdated('doc://other');
    server.notifyResourceUpdated('doc://a');
    expect(await live.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'doc://a', _meta: { [SUBSCRIPTION_ID]: 'res' } },
    });
    server.addResource({ uri: 'doc://b', name: 'b', handler: () => 'b' });
    server.removeResource('doc://b');
    expect((await live.next()).method).toBe('notifications/resources/list_changed');
  });

  it('delivers events published on the event bus, as another instance would', async () => {
    const live = await listen({ toolsListChanged: true });
    await live.next();
    bus.publish({ type: 'tools/list_changed' });
    expect((await live.next()).method).toBe('notifications/tools/list_changed');
  });

  it('ends the subscription when the client closes the stream', async () => {
    const live = await listen({ toolsListChanged: true });
    await live.next();
    expect(bus.live).toBe(1);
    const released = bus.nextRelease();
    live.close();
    await released;
    expect(bus.live).toBe(0);
  });

  it('needs the _meta envelope like any request', async () => {
    const res = await createMcpTestClient(app).post({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: { notifications: {} },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32602);
  });
});

describe('subscriptions/listen at shutdown', () => {
  it('ends open streams with a closing result carrying the subscription id', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'closing', version: '1.0.0' })]);
    app
      .get(MCPServer)
      .addTool({ name: 't', description: 'A tool', inputSchema: { type: 'object' }, handler: () => 'x' });
    const url = await listenOnLoopback(app);
    const live = await LiveResponse.post(
      url,
      mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'bye' }),
    );
    expect((await live.next()).method).toBe('notifications/subscriptions/acknowledged');
    app.get<McpKernel>(MCP_KERNEL).close();
    expect(await live.rest()).toEqual([
      {
        jsonrpc: '2.0',
        id: 'bye',
        result: { resultType: 'complete', _meta: expect.objectContaining({ [SUBSCRIPTION_ID]: 'bye' }) },
      },
    ]);
    await closeListening(app);
  });
});
