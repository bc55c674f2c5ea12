import 'reflect-metadata';
import request from 'supertest';
import { McpConfigurationError, McpModule } from '../../src/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

/** The playground off by default, and refused in production: no page built is needed for either. */
describe.each(HTTP_ADAPTERS)('the playground option (%s)', (adapter) => {
  it('serves nothing at <endpoint>/playground when not enabled', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'plain', version: '1.0.0' })], [], adapter);
    try {
      await request(app.getHttpServer()).get('/mcp/playground').expect(404);
      await request(app.getHttpServer()).get('/mcp/playground/frame').expect(404);
    } finally {
      await app.close();
    }
  });

  it('refuses to start with it under NODE_ENV=production, saying how to force it', async () => {
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const failure = await createApp(
        [McpModule.forRoot({ name: 'prod', version: '1.0.0', playground: { enabled: true } })],
        [],
        adapter,
      ).then(
        async (app) => {
          await app.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(McpConfigurationError);
      expect((failure as Error).message).toBe(
        'McpModule: the playground is a development tool and NODE_ENV is "production": remove the "playground" ' +
          'option for production, or write playground: { enabled: true, allowInProduction: true } to serve it anyway',
      );
    } finally {
      process.env.NODE_ENV = before;
    }
  });
});
