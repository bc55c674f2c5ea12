import type { LoggerService } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

/**
 * Logs where the playground is once the app listens (the port is known only then), or at once with the paths
 * alone when the HTTP server is not a listening Node server (an app that never listens, a custom adapter).
 */
export function announcePlayground(server: Server | undefined, paths: string[], logger: LoggerService): void {
  const say = (where: string[]) => logger.log(`MCP playground (development only): ${where.join(', ')}`);
  if (typeof server?.once !== 'function') return say(paths);
  const withAddress = () => {
    const address = server.address() as AddressInfo | string | null;
    if (!address || typeof address === 'string') return say(paths);
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    say(paths.map((path) => `http://${host}:${address.port}${path}`));
  };
  if (server.listening) withAddress();
  else server.once('listening', withAddress);
}
