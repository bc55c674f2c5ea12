import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { MCPServer, McpModule, Tool } from '../../src/index.js';
import { McpRedisBackends, McpRedisConnections, McpRedisModule } from '../../src/redis/index.js';
import { createApp } from '../support/create-app.js';
import { until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';

/**
 * A TCP proxy to the machine's Redis that accepts connections at once and forwards nothing until `release()`:
 * a Redis slow to accept, as one starting up or far away is, held for as long as the test needs.
 */
async function heldProxy(port = 6379) {
  let released = false;
  const waiting: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => client.destroy());
    const forward = () => {
      const upstream = connect(port, '127.0.0.1');
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    };
    if (released) forward();
    else waiting.push(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => waiting.length,
    release() {
      released = true;
      for (const forward of waiting.splice(0)) forward();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

@Injectable()
class StartupTools {
  @Tool({ description: 'Registered while Redis is still connecting' })
  ping() {
    return 'pong';
  }
}

describe('nestjs-mcp/redis while the first connection to Redis is being made', () => {
  it('sends what was published before it was ready once it is, in order, and reports no outage', async () => {
    const keyPrefix = testKeyPrefix();
    const proxy = await heldProxy();
    const observer = new Redis(MACHINE_REDIS_URL);
    const seen: Array<Record<string, unknown>> = [];
    observer.on('message', (_channel: string, message: string) => seen.push((JSON.parse(message) as { e: never }).e));
    await observer.subscribe(`${keyPrefix}events`);
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const app = await createApp(
      [
        McpRedisModule.forRoot({ url: proxy.url, keyPrefix }),
        McpModule.forRootAsync({
          inject: [McpRedisBackends],
          useFactory: (redis: McpRedisBackends) => ({ name: 'slow-redis', version: '1.0.0', ...redis }),
        }),
      ],
      [StartupTools],
    );
    try {
      const connections = app.get(McpRedisConnections);
      // Started (its tools registered, which publishes tools/list_changed) with Redis not answering yet.
      await until(() => proxy.held() === 2, 'both connections wait at the proxy');
      expect(connections.commands.status).not.toBe('ready');
      const server = app.get(MCPServer);
      server.notifyResourceUpdated('test://before-ready');

      proxy.release();
      await until(() => connections.ready, 'the connections are ready');
      server.notifyResourceUpdated('test://after-ready');
      await until(() => seen.some((event) => event.uri === 'test://after-ready'), 'the observer got the last event');

      expect(seen).toEqual([
        { type: 'tools/list_changed' },
        { type: 'resources/updated', uri: 'test://before-ready' },
        { type: 'resources/updated', uri: 'test://after-ready' },
      ]);
      const warnings = warn.mock.calls.map(([message]) => String(message));
      expect(warnings.filter((message) => /Redis|Events reach/.test(message))).toEqual([]);
    } finally {
      warn.mockRestore();
      await app.close();
      observer.disconnect();
      await proxy.close();
    }
  });
});
