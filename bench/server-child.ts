import 'reflect-metadata';
import type { AddressInfo, Server } from 'node:net';
import type { ChildUsage, ServerName } from './fixtures.js';
import { GcWindow } from './gc-window.js';

/**
 * One benchmarked server in its own process, on 127.0.0.1 and a free port. The parent learns the port, and
 * reads this process's CPU time and RSS, over IPC: `node server-child.js <server> <tools> [paged] [legacy] [elicit]
 * [stateful] [shape]`.
 * `legacy` turns the peers' 2025 legs on (this library serves both eras on one endpoint whatever it is given);
 * `elicit` adds this library's input-round tools (`elicitation.ts`); `stateful` gives its 2025-era clients sessions;
 * `shape` adds the argument-shape rows' `count_items` tool (the bare route answers it whatever it is given).
 */
async function start(name: ServerName, tools: number, flags: string[]): Promise<number> {
  const [paged, legacy, elicit, stateful, shape] = ['paged', 'legacy', 'elicit', 'stateful', 'shape'].map((flag) =>
    flags.includes(flag),
  );
  switch (name) {
    case 'mcp-fastify':
    case 'mcp-express':
    case 'nest-fastify':
    case 'nest-express':
    case 'nest-fastify-checked':
    case 'nest-express-checked':
    case 'mcp-express-prototype':
    case 'mcp-fastify-redis':
    case 'mcp-fastify-features':
    case 'mcp-fastify-decorated':
    case 'mcp-express-decorated':
    case 'mcp-fastify-throttled':
    case 'mcp-express-throttled':
    case 'nest-express-prototype':
    case 'rekog-fastify':
    case 'rekog-express': {
      const adapter = name.includes('fastify')
        ? 'fastify'
        : name.endsWith('prototype')
          ? 'express-prototype'
          : 'express';
      // Imported per server, so each process holds only its own server's code (the RSS and heap columns).
      const app = name.startsWith('mcp')
        ? await (
            await import('./servers/nest-mcp.js')
          ).startNestMcp(
            adapter,
            tools,
            paged,
            name.endsWith('redis'),
            elicit,
            name.endsWith('features'),
            stateful,
            name.endsWith('decorated') || name.endsWith('throttled'),
            shape,
            name.endsWith('throttled'),
          )
        : name.startsWith('rekog')
          ? await (await import('./servers/rekog.js')).startRekog(adapter, tools, legacy)
          : await (await import('./servers/nest-bare.js')).startNestBare(adapter, tools, name.endsWith('checked'));
      await app.listen(0, '127.0.0.1');
      return (app.getHttpServer().address() as AddressInfo).port;
    }
    case 'node-http':
    case 'sdk': {
      const server: Server =
        name === 'sdk'
          ? (await import('./servers/sdk.js')).startSdk(tools, legacy)
          : (await import('./servers/node-http.js')).startNodeHttp(tools);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    }
  }
}

const [name, tools, ...flags] = process.argv.slice(2);
const port = await start(name as ServerName, Number(tools), flags);
// Each usage report closes a window of the heap's figures and opens the next one after its forced collection.
// `collect` only runs the collection: the instruction gauge counts what the server does, and a GC profiler's
// statistics, gathered at every collection, would be part of that.
const gcWindow = new GcWindow();
const collect = () => (globalThis as { gc?: () => void }).gc?.();
process.on('message', (message) => {
  if (message === 'collect') {
    collect();
    process.send!('collected');
    return;
  }
  if (message !== 'usage') return;
  const cpu = process.cpuUsage();
  const rss = process.memoryUsage().rss;
  const gc = gcWindow.stop();
  collect();
  const report: ChildUsage = {
    cpu,
    rss,
    gc,
    heapAfterGc: process.memoryUsage().heapUsed,
    cpuAfterGc: process.cpuUsage(),
  };
  gcWindow.start();
  process.send!(report);
});
// The parent going away ends this server too, so no run can leave one behind.
process.on('disconnect', () => process.exit(0));
process.send!({ port });
