import 'reflect-metadata';
import { McpConfigurationError, McpModule } from '../../src/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

// `path`, `isGlobal`, `isDefault` and `playground` shape the module (its controllers, routes and scope), which
// Nest defines before any factory runs: `forRootAsync` takes them beside `useFactory`. The type of what the
// factory returns refuses them (`npm run lint` type-checks this file), and start-up says where they go.

const IDENTITY = { name: 'async', version: '1.0.0' };

async function startupError(module: ReturnType<typeof McpModule.forRootAsync>): Promise<unknown> {
  try {
    const app = await createApp([module]);
    await app.close();
  } catch (error) {
    return error;
  }
  throw new Error('start-up succeeded');
}

const beside = (key: string) =>
  `McpModule.forRootAsync: '${key}' shapes the module, which is defined before the factory runs, so the ` +
  `factory's options cannot carry it: give it beside useFactory, McpModule.forRootAsync({ ${key}: ..., ` +
  'useFactory: () => ({ name, version, ... }) })';

describe('Options that shape the module, returned by a forRootAsync factory', () => {
  it('are refused by the factory type and at start-up, naming where they belong', async () => {
    const refused = [
      McpModule.forRootAsync({
        // @ts-expect-error: the playground is a route of the module; it goes beside useFactory
        useFactory: () => ({ ...IDENTITY, playground: true }),
      }),
      McpModule.forRootAsync({
        // @ts-expect-error: the endpoint's path is the module's controller; it goes beside useFactory
        useFactory: async () => ({ ...IDENTITY, path: '/tools' }),
      }),
      McpModule.forRootAsync({
        // @ts-expect-error: whether the module is global is decided when it is defined
        useFactory: () => ({ ...IDENTITY, isGlobal: true }),
      }),
      McpModule.forRootAsync({
        // @ts-expect-error: which server MCPServer injects is decided when the module is defined
        useFactory: () => ({ ...IDENTITY, isDefault: false }),
      }),
    ];
    const keys = ['playground', 'path', 'isGlobal', 'isDefault'];
    for (const [index, module] of refused.entries()) {
      const error = await startupError(module);
      expect(error).toBeInstanceOf(McpConfigurationError);
      expect((error as Error).message).toBe(beside(keys[index]));
    }
  });

  it.each(HTTP_ADAPTERS)('are taken beside useFactory (%s)', async (adapter) => {
    const app = await createApp(
      [McpModule.forRootAsync({ path: '/tools', isGlobal: true, playground: false, useFactory: () => IDENTITY })],
      [],
      adapter,
    );
    try {
      const { result } = await createMcpTestClient(app, { path: '/tools' }).discover();
      expect((result as any)._meta['io.modelcontextprotocol/serverInfo']).toEqual(IDENTITY);
    } finally {
      await app.close();
    }
  });
});
