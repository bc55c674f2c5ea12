import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { AppModule } from '../../examples/basic/app.module.js';
import { createApp } from '../support/create-app.js';
import { callTool, envelope, post, sseMessages } from '../support/mcp-request.js';

describe('The example app (decorator style)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([AppModule]);
  });
  afterAll(() => app.close());

  it('lists its three decorated tools', async () => {
    const res = await post(app, envelope('tools/list')).expect(200);
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['get_weather', 'add', 'countdown']);
  });

  it('answers get_weather and add', async () => {
    const weather = await callTool(app, 'get_weather', { city: 'Paris' }).expect(200);
    expect(JSON.parse(weather.body.result.content[0].text)).toMatchObject({
      city: 'Paris',
      conditions: expect.any(String),
    });
    const sum = await callTool(app, 'add', { a: 2, b: 3 }).expect(200);
    expect(sum.body.result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('streams countdown progress before the result', async () => {
    const res = await callTool(app, 'countdown', { n: 3 }, {}, { meta: { progressToken: 'p1' } })
      .buffer(true)
      .parse((response, done) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => done(null, text));
      })
      .expect(200);
    const messages = sseMessages(res.body as string);
    const progress = messages
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => (m.params as { progress: number }).progress);
    expect(progress).toEqual([1, 2, 3]);
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'Lift-off!' }] } });
  });
});
