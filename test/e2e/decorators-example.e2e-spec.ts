import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { AppModule } from '../../examples/basic/app.module.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient, sseMessages } from '../../src/testing/index.js';

describe('The example app (decorator style)', () => {
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    app = await createApp([AppModule]);
    mcp = createMcpTestClient(app);
  });
  afterAll(() => app.close());

  it('lists its three decorated tools and its route tool', async () => {
    const res = await mcp.post(mcpMessage('tools/list'));
    expect(res.status).toBe(200);
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'get_weather',
      'add',
      'countdown',
      'get_forecast',
    ]);
  });

  it('answers get_weather and add', async () => {
    const weather = await mcp.post(mcpMessage('tools/call', { name: 'get_weather', arguments: { city: 'Paris' } }));
    expect(weather.status).toBe(200);
    expect(JSON.parse(weather.body.result.content[0].text)).toMatchObject({
      city: 'Paris',
      conditions: expect.any(String),
    });
    const sum = await mcp.post(mcpMessage('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }));
    expect(sum.status).toBe(200);
    expect(sum.body.result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('lists weather.checked, and get_weather publishes one occurrence per forecast, from a poll cursor', async () => {
    const listed = await mcp.post(mcpMessage('events/list'));
    expect(listed.body.result.events).toEqual([
      expect.objectContaining({ name: 'weather.checked', delivery: ['poll', 'push', 'webhook'] }),
    ]);
    const start = await mcp.post(mcpMessage('events/poll', { name: 'weather.checked', cursor: null }));
    expect(start.body.result.events).toEqual([]);
    await mcp.post(mcpMessage('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' } }));
    const after = await mcp.post(
      mcpMessage('events/poll', { name: 'weather.checked', cursor: start.body.result.cursor }),
    );
    const forecast = await mcp.post(mcpMessage('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' } }));
    expect(after.body.result.events).toEqual([
      {
        eventId: expect.any(String),
        name: 'weather.checked',
        timestamp: expect.any(String),
        data: { city: 'Oslo', conditions: JSON.parse(forecast.body.result.content[0].text).conditions },
      },
    ]);
  });

  it("publishes add's schema as nestjs-mcp/plugin derived it, and refuses a wrong argument type naming it", async () => {
    const { result } = await mcp.listTools();
    expect(result?.tools.find((tool) => tool.name === 'add')).toEqual({
      name: 'add',
      description: 'Adds two numbers',
      inputSchema: {
        type: 'object',
        properties: {
          a: { type: 'number', description: 'the first addend' },
          b: { type: 'number', description: 'the second addend' },
        },
        required: ['a', 'b'],
      },
    });
    const wrong = await mcp.callTool('add', { a: 'two', b: 3 });
    expect(wrong.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Invalid argument "a": must be number (type)' }],
    });
  });

  it('streams countdown progress before the result', async () => {
    const res = await mcp.post(
      mcpMessage('tools/call', { name: 'countdown', arguments: { n: 3 } }, { meta: { progressToken: 'p1' } }),
    );
    expect(res.status).toBe(200);
    const messages = sseMessages(res.text);
    const progress = messages
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => (m.params as { progress: number }).progress);
    expect(progress).toEqual([1, 2, 3]);
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'Lift-off!' }] } });
  });
});
