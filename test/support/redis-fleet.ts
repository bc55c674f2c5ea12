import { Logger, type INestApplication } from '@nestjs/common';
import { MCPServer, McpModule } from '../../src/index.js';
import { McpRedisBackends, McpRedisConnections, McpRedisModule, type McpRedisOptions } from '../../src/redis/index.js';
import { createApp } from './create-app.js';
import { closeListening, listenOnLoopback } from './sse-client.js';

export const FLEET_SECRET = 'shared-secret-of-the-fleet-0123456789abcdef';
export const CONFIRM_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

/** One instance of a fleet: its own Nest app and kernel, listening on loopback, sharing Redis with the others. */
export interface FleetInstance {
  app: INestApplication;
  url: string;
  server: MCPServer;
  backends: McpRedisBackends;
  connections: McpRedisConnections;
  close(): Promise<void>;
}

/**
 * Starts an instance configured the documented way (`McpRedisModule.forRoot` + `McpModule.forRootAsync`
 * spreading `McpRedisBackends`), with a plain tool that needs nothing from Redis (`add`), a single-use tool
 * (`transfer`) and a resource to watch.
 */
export async function startFleetInstance(options: McpRedisOptions): Promise<FleetInstance> {
  const app = await createApp([
    McpRedisModule.forRoot(options),
    McpModule.forRootAsync({
      inject: [McpRedisBackends],
      useFactory: (redis: McpRedisBackends) => ({ name: 'fleet', version: '1.0.0', requestStateSecret: FLEET_SECRET, ...redis }),
    }),
  ]);
  const server = app.get(MCPServer);
  server.registerTool('add', 'Adds', { type: 'object' }, ({ a, b }: { a: number; b: number }) => a + b);
  server.addTool({
    name: 'transfer',
    description: 'Moves money once per confirmation',
    inputSchema: { type: 'object' },
    singleUseState: true,
    handler: async (_args, _responses, ctx) => {
      await ctx.elicit('Transfer?', CONFIRM_SCHEMA, { key: 'confirm' });
      return 'transferred';
    },
  });
  server.addResource({ uri: 'test://watched', name: 'watched', handler: () => 'contents' });
  const url = await listenOnLoopback(app);
  return {
    app,
    url,
    server,
    backends: app.get(McpRedisBackends),
    connections: app.get(McpRedisConnections),
    close: () => closeListening(app),
  };
}

/** Waits for a condition that other processes make true (Redis connecting, a subscription landing). */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Silences the module's outage warnings in tests that cause outages on purpose. */
export function quietRedisLogs(): void {
  Logger.overrideLogger(false);
}
