import { Logger, type INestApplication } from '@nestjs/common';
import type { LegacySessionOptions } from '../../src/server/sessions/legacy-sessions.js';
import { MCPServer, McpModule } from '../../src/index.js';
import { McpRedisBackends, McpRedisConnections, McpRedisModule, type McpRedisOptions } from '../../src/redis/index.js';
import { createApp } from './create-app.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { transferTool } from './transfer-tool.js';
import { closeListening, LiveResponse, listenOnLoopback } from './sse-client.js';

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
 * (`transfer`) and a resource to watch; `stateful` gives 2025-era clients sessions, in Redis (with `sessions`).
 */
export async function startFleetInstance(
  options: McpRedisOptions,
  stateful = false,
  sessions: Omit<LegacySessionOptions, 'store'> = {},
): Promise<FleetInstance> {
  const app = await createApp([
    McpRedisModule.forRoot(options),
    McpModule.forRootAsync({
      inject: [McpRedisBackends],
      useFactory: (redis: McpRedisBackends) => ({
        name: 'fleet',
        version: '1.0.0',
        ...redis,
        requestState: { ...redis.requestState, secret: FLEET_SECRET },
        legacy: {
          ...redis.legacy,
          mode: stateful ? 'stateful' : 'stateless',
          sessions: { ...redis.legacy.sessions, ...sessions },
        },
      }),
    }),
  ]);
  const server = app.get(MCPServer);
  server.registerTool('add', 'Adds', { type: 'object' }, ({ a, b }: { a: number; b: number }) => a + b);
  server.addTool(transferTool(CONFIRM_SCHEMA));
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
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
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

/** POSTs a conforming body to an instance and reads its JSON answer. */
export async function postTo(
  instance: FleetInstance,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(instance.url, { method: 'POST', headers: mcpHeaders(body), body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** Opens a listen stream on an instance for tool-list changes and the given resource URIs. */
export function listenOn(instance: FleetInstance, uris: string[]): Promise<LiveResponse> {
  return LiveResponse.post(
    instance.url,
    mcpMessage(
      'subscriptions/listen',
      { notifications: { toolsListChanged: true, resourceSubscriptions: uris } },
      { id: 'listen' },
    ),
  );
}

/** The notifications of a stream up to and including the one about `lastUri`, as short strings. */
export async function readUntil(stream: LiveResponse, lastUri: string): Promise<string[]> {
  const seen: string[] = [];
  for (;;) {
    const message = await stream.next();
    const uri = (message.params as { uri?: string }).uri;
    seen.push(uri ? `${message.method} ${uri}` : String(message.method));
    if (uri === lastUri) return seen;
  }
}
