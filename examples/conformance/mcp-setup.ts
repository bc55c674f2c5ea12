import type { DynamicModule } from '@nestjs/common';
import { resolve } from 'node:path';
import { BullModule } from '@nestjs/bullmq';
import { McpModule, type McpModuleOptions } from '../../src/index.js';
import { McpBullModule, McpTaskQueue } from '../../src/bullmq/index.js';
import { McpRedisBackends, McpRedisModule } from '../../src/redis/index.js';
import { SERVER_EXTENSIONS } from './fixture-data.js';
import { audienceAuth } from './audience-auth.js';
import { scopeChallengeAuth } from './scope-challenge.js';

/**
 * The fixture's MCP server, alone by default. With `REDIS_URL` it is one instance of a fleet: listen-stream
 * events and single-use request states go through Redis (under `REDIS_KEY_PREFIX`), and `MCP_STATE_SECRET`
 * signs request state the same way on every instance, so any of them can serve any round. `MCP_TASK_LEASE_MS`
 * sets `tasks.leaseMs` (how soon the others see a task of a dead instance failed), and `MCP_LEGACY` sets
 * `legacy.mode` (`stateful`: 2025-era clients get sessions). `MCP_TASKS=bullmq` (with `REDIS_URL`) runs the task
 * tools as BullMQ jobs: this process only queues them, and `worker.ts` (the same module) runs them;
 * `MCP_TASK_STALLED_MS` sets the workers' lock and stalled-check interval (how soon a lost worker's job moves).
 * `MCP_SCOPE_CHALLENGE=1` makes the endpoint a resource server for the SEP-2350 scenario (`scope-challenge.ts`),
 * `MCP_CONFORMANCE_AUTH=1` one that trusts the referee's mock authorization server (`audience-auth.ts`).
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
  const challenge = scopeChallengeAuth(env);
  const audience = audienceAuth(env);
  if (challenge && audience)
    throw new Error('MCP_SCOPE_CHALLENGE and MCP_CONFORMANCE_AUTH are separate launches: set one');
  const auth = challenge ?? audience;
  if (auth) options.auth = auth;
  const mode = env.MCP_LEGACY as 'stateless' | 'stateful' | 'off' | undefined;
  // server-legacy-extensions: named in the 2025-11-25 initialize result only, since their settings hold a null,
  // which 2026-07-28's JSON values do not allow.
  options.legacy = { extensions: SERVER_EXTENSIONS, ...(mode ? { mode } : {}) };
  if (!env.REDIS_URL) return [McpModule.forRoot(options)];
  const keyPrefix = env.REDIS_KEY_PREFIX ?? 'nestjs-mcp-conformance:';
  const queued = env.MCP_TASKS === 'bullmq';
  return [
    McpRedisModule.forRoot({ url: env.REDIS_URL, keyPrefix }),
    ...(queued ? taskQueueModules(env.REDIS_URL, keyPrefix, env) : []),
    McpModule.forRootAsync({
      inject: queued ? [McpRedisBackends, McpTaskQueue] : [McpRedisBackends],
      useFactory: (redis: McpRedisBackends, queue?: McpTaskQueue) => ({
        ...options,
        ...redis,
        requestState: { ...redis.requestState, secret },
        tasks: { ...redis.tasks, ...tasks, queue },
        legacy: { ...redis.legacy, ...options.legacy },
      }),
    }),
  ];
}

/** BullMQ on the same Redis, under the same prefix; the web instance queues only (`runJobs: false`). */
function taskQueueModules(url: string, keyPrefix: string, env: NodeJS.ProcessEnv): DynamicModule[] {
  const { hostname, port, password, pathname } = new URL(url);
  const connection = {
    host: hostname,
    port: Number(port || 6379),
    password: password || undefined,
    db: Number(pathname.slice(1) || 0),
  };
  const interval = env.MCP_TASK_STALLED_MS ? Number(env.MCP_TASK_STALLED_MS) : undefined;
  return [
    BullModule.forRoot({ connection, prefix: `${keyPrefix}bull` }),
    McpBullModule.forRoot({
      queue: 'mcp-tasks',
      runJobs: false,
      worker: interval ? { lockDuration: interval, stalledInterval: interval } : undefined,
    }),
  ];
}
