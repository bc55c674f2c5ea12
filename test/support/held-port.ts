import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A port on 127.0.0.1 kept listening until its owner takes it over: a free port picked now and bound seconds later
 * (after an app has started) can be taken meanwhile by any other process on a busy machine. Until then it answers
 * 503, as a server that is down would for every path.
 */
export interface HeldPort {
  port: number;
  server: Server;
  /** Frees the port for a listener that cannot be handed the server (a Nest app): the gap is one tick. */
  release(): Promise<void>;
}

export async function holdPort(): Promise<HeldPort> {
  const server = createServer((_req, res) => res.writeHead(503).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    server,
    release: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  };
}
