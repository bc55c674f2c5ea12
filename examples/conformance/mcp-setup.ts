import type { DynamicModule } from '@nestjs/common';
import { resolve } from 'node:path';
import { McpModule, type McpModuleOptions } from '../../src/index.js';
import { McpRedisBackends, McpRedisModule } from '../../src/redis/index.js';

/**
 * The fixture's MCP server, alone by default. With `REDIS_URL` it is one instance of a fleet: listen-stream
 * events and single-use request states go through Redis (under `REDIS_KEY_PREFIX`), and `MCP_STATE_SECRET`
 * signs request state the same way on every instance, so any of them can serve any round. `MCP_TASK_LEASE_MS`
 * sets `tasks.leaseMs` (how soon the others see a task of a dead instance failed), and `MCP_LEGACY` sets
 * `legacy.mode` (`stateful`: 2025-era clients get sessions).
 */
export function fixtureMcpModules(env: NodeJS.ProcessEnv = process.env): DynamicModule[] {
  const secret = env.MCP_STATE_SECRET;
  const tasks = env.MCP_TASK_LEASE_MS ? { leaseMs: Number(env.MCP_TASK_LEASE_MS) } : {};
  const options: McpModuleOptions = {
    name: 'nestjs-mcp-conformance',
    version: '1.0.0',
    requestState: { secret },
    tasks,
    // The Skills extension (SEP-2640): this folder (run from the repository's root) and ConformanceSkills.
    skills: { directory: resolve(env.MCP_SKILLS_DIR ?? 'examples/conformance/skills'), directoryRead: true },
  };
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
        tasks: { ...redis.tasks, ...tasks },
        legacy: { ...redis.legacy, mode },
      }),
    }),
  ];
}
