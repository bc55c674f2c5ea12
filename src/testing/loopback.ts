import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Nest app (`INestApplication`) or a Node server. */
export type HttpServing = { getHttpServer(): unknown } | Server;

/** Where a server answers over loopback, and the listener started for it when it was not listening yet. */
export interface LoopbackOrigin {
  origin: string;
  started?: Server;
}

/**
 * The origin of a server or a Nest app. An app that was only init()ed is listened on an ephemeral loopback port,
 * as supertest does; Fastify adds its routes only in ready(), which its own listen() would have called, so it is
 * awaited first, or requests hang.
 */
export async function loopbackOrigin(target: HttpServing): Promise<LoopbackOrigin> {
  const server = ('getHttpServer' in target ? target.getHttpServer() : target) as Server;
  let started: Server | undefined;
  if (!server.listening) {
    await adapterReady(target);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    started = server;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    origin: `http://${host === '[::]' ? '[::1]' : host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`,
    started,
  };
}

/** Stops a listener `loopbackOrigin` started (a Nest app's `close()` stops it too). */
export async function closeListener(server: Server | undefined): Promise<void> {
  if (server?.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Waits for the HTTP framework under a Nest app to be ready to route (Fastify's `ready()`; Express has none). */
async function adapterReady(target: HttpServing): Promise<void> {
  const adapter = (target as { getHttpAdapter?: () => { getInstance?: () => unknown } | undefined }).getHttpAdapter?.();
  const instance = adapter?.getInstance?.() as { ready?: () => PromiseLike<unknown> } | undefined;
  if (typeof instance?.ready === 'function') await instance.ready();
}
