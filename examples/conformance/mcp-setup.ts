import type { DynamicModule } from '@nestjs/common';
import { McpModule, type McpModuleOptions } from '../../src/index.js';
import { McpRedisBackends, McpRedisModule } from '../../src/redis/index.js';

/**
 * The fixture's MCP server, alone by default. With `REDIS_URL` it is one instance of a fleet: listen-stream
 * events and single-use request states go through Redis (under `REDIS_KEY_PREFIX`), and `MCP_STATE_SECRET`
 * signs request state the same way on every instance, so any of them can serve any round. `MCP_LEGACY`
 * sets `legacy.mode` (`stateful`: 2025-era clients get sessions).
 */
export function fixtureMcpModules(env: NodeJS.ProcessEnv = process.env): DynamicModule[] {
  const secret = env.MCP_STATE_SECRET;
  const options: McpModuleOptions = { name: 'nestjs-mcp-conformance', version: '1.0.0', requestState: { secret } };
  const mode = env.MCP_LEGACY as 'stateless' | 'stateful' | 'off' | undefined;
  if (mode) options.legacy = { mode };
  if (!env.REDIS_URL) return [McpModule.forRoot(options)];
  return [
    McpRedisModule.forRoot({ url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX ?? 'nestjs-mcp-conformance:' }),
    McpModule.forRootAsync({
      inject: [McpRedisBackends],
      useFactory: (redis: McpRedisBackends) => ({
        ...options,
        ...redis,
        requestState: { ...redis.requestState, secret },
        legacy: { ...redis.legacy, mode },
      }),
    }),
  ];
}
