import 'reflect-metadata';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startFixture } from '../../test/security/fixture.js';

/**
 * The system under test of the security.md §5 plan: the fixture tools with the §5.2 settings, on 127.0.0.1.
 * Forked by run.ts with --expose-gc; it answers the IPC message "stats" (after a GC) with memory, in-flight
 * calls, open streams, active resources and event-loop delay, and shuts down gracefully on SIGTERM. No HTTP
 * debug endpoint exists.
 */
const fx = await startFixture(
  {
    http: {
      maxBodyBytes: 1024 * 1024,
      maxResponseBytes: 1024 * 1024,
      sseKeepAliveMs: 1_000,
      drainTimeoutMs: 3_000,
      serverTimeouts: {
        requestTimeoutMs: 5_000,
        headersTimeoutMs: 3_000,
        keepAliveTimeoutMs: 5_000,
        checkIntervalMs: 500,
      },
    },
    limits: { callTimeoutMs: 2_000, maxConcurrentCalls: 2_000 },
    listen: { maxStreams: 32 },
  },
  true,
);
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

process.on('message', (message) => {
  if (message !== 'stats') return;
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  process.send?.({
    heapUsed: memory.heapUsed,
    rss: memory.rss,
    calls: fx.server.load.calls,
    subscriptions: fx.server.load.subscriptions,
    dispatched: fx.calls(),
    aborted: fx.aborted(),
    activeResources: process.getActiveResourcesInfo().length,
    loopDelayP50Ms: loopDelay.percentile(50) / 1e6,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
  });
  loopDelay.reset();
});
process.once('SIGTERM', () => {
  void fx.app.close().then(() => process.exit(0));
});
process.send?.({ port: fx.port });
