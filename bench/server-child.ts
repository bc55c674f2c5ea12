import 'reflect-metadata';
import type { AddressInfo, Server } from 'node:net';
import { startNestBare } from './servers/nest-bare.js';
import { startNestMcp } from './servers/nest-mcp.js';
import { startNodeHttp } from './servers/node-http.js';
import { startRekog } from './servers/rekog.js';
import { startSdk } from './servers/sdk.js';
import type { ChildUsage, ServerName } from './fixtures.js';

/**
 * One benchmarked server in its own process, on 127.0.0.1 and a free port. The parent learns the port, and
 * reads this process's CPU time and RSS, over IPC: `node server-child.js <server> <tools>`.
 */
async function start(name: ServerName, tools: number): Promise<number> {
  switch (name) {
    case 'mcp-fastify':
    case 'mcp-express':
    case 'nest-fastify':
    case 'nest-express':
    case 'rekog-fastify':
    case 'rekog-express': {
      const adapter = name.endsWith('fastify') ? 'fastify' : 'express';
      const startApp = name.startsWith('mcp') ? startNestMcp : name.startsWith('rekog') ? startRekog : startNestBare;
      const app = await startApp(adapter, tools);
      await app.listen(0, '127.0.0.1');
      return (app.getHttpServer().address() as AddressInfo).port;
    }
    case 'node-http':
    case 'sdk': {
      const server: Server = name === 'sdk' ? startSdk(tools) : startNodeHttp(tools);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    }
  }
}

const [name, tools] = process.argv.slice(2);
const port = await start(name as ServerName, Number(tools));
process.on('message', (message) => {
  if (message !== 'usage') return;
  const cpu = process.cpuUsage();
  const rss = process.memoryUsage().rss;
  (globalThis as { gc?: () => void }).gc?.();
  process.send!({ cpu, rss, heapAfterGc: process.memoryUsage().heapUsed, cpuAfterGc: process.cpuUsage() } satisfies ChildUsage);
});
// The parent going away ends this server too, so no run can leave one behind.
process.on('disconnect', () => process.exit(0));
process.send!({ port });
