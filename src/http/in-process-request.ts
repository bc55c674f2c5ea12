import { request as clientRequest, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { isIPv6 } from 'node:net';
import { Duplex } from 'node:stream';

/** Set on the server end of an in-process connection: what tells an in-process request from a network one. */
const IN_PROCESS = Symbol.for('nestjs-mcp.in-process-request');
/** Set beside it: what the request is meant to reach, for the app-side check that it did. */
const TARGET = Symbol.for('nestjs-mcp.in-process-target');

export interface InProcessRequest {
  method: string;
  /** Path and query, already encoded. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Seen by the server as the connection's peer (`req.socket.remoteAddress`, Express's `req.ip`). */
  remoteAddress?: string;
  /** Whether the connection reads as TLS (`socket.encrypted`): the framework's `req.protocol` is then `https`. */
  encrypted?: boolean;
  /** What the request is meant to reach, read back on the server side by `inProcessTarget`. */
  target?: object;
  /** The answer is read into memory up to this many bytes; a longer one is cut and refused. */
  maxResponseBytes: number;
  signal?: AbortSignal;
}

export type InProcessResponse =
  | { kind: 'complete'; status: number; headers: IncomingHttpHeaders; body: Buffer }
  /** The server answered with an event stream, which never ends on its own: the connection was closed. */
  | { kind: 'stream'; status: number; headers: IncomingHttpHeaders }
  | { kind: 'too-large'; status: number; headers: IncomingHttpHeaders };

/**
 * One end of an in-memory connection: what one end writes, the other reads. It offers the few `net.Socket`
 * members Node's HTTP server and client call on their socket, so both run unchanged over it.
 */
class InMemorySocket extends Duplex {
  peer!: InMemorySocket;
  readonly remotePort = 0;
  readonly localAddress = '127.0.0.1';
  readonly localPort = 0;
  readonly remoteFamily: string;
  encrypted = false;

  constructor(readonly remoteAddress: string) {
    super();
    this.remoteFamily = isIPv6(remoteAddress) ? 'IPv6' : 'IPv4';
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.peer.push(chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.peer.destroyed) this.peer.destroy();
    callback(error);
  }

  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  address(): { address: string; family: string; port: number } {
    return { address: this.localAddress, family: 'IPv4', port: 0 };
  }
}

/** Whether `req` arrived through `sendInProcess` rather than from the network. */
export function isInProcessRequest(req: IncomingMessage): boolean {
  return (req.socket as unknown as Record<symbol, unknown> | null)?.[IN_PROCESS] === true;
}

/** The `target` an in-process request was sent with; undefined for any other request. */
export function inProcessTarget(socket: unknown): object | undefined {
  return (socket as Record<symbol, object | undefined> | null | undefined)?.[TARGET];
}

/**
 * Sends one HTTP request to `server` without a listener: the request travels over an in-memory connection
 * handed to the server as Node's `connection` event allows, so the server parses it as it parses any
 * request and its whole stack (middleware, routing, body parsing) runs unchanged. Works on a server that
 * never listened. The answer is read into memory under `maxResponseBytes`; an event stream is not waited for.
 */
export function sendInProcess(server: Server, request: InProcessRequest): Promise<InProcessResponse> {
  const serverEnd = new InMemorySocket(request.remoteAddress ?? '127.0.0.1');
  const clientEnd = new InMemorySocket('127.0.0.1');
  serverEnd.peer = clientEnd;
  clientEnd.peer = serverEnd;
  (serverEnd as unknown as Record<symbol, unknown>)[IN_PROCESS] = true;
  if (request.target) (serverEnd as unknown as Record<symbol, unknown>)[TARGET] = request.target;
  serverEnd.encrypted = request.encrypted === true;

  return new Promise((resolve, reject) => {
    const abort = () => {
      clientEnd.destroy();
      reject(request.signal?.reason ?? new Error('aborted'));
    };
    if (request.signal?.aborted) return abort();
    request.signal?.addEventListener('abort', abort, { once: true });
    const settle = (response: InProcessResponse) => {
      request.signal?.removeEventListener('abort', abort);
      clientEnd.destroy();
      resolve(response);
    };

    const outgoing = clientRequest({
      method: request.method,
      path: request.path,
      headers: { ...request.headers, connection: 'close' },
      createConnection: () => clientEnd,
    });
    outgoing.on('error', (error) => {
      request.signal?.removeEventListener('abort', abort);
      reject(error);
    });
    outgoing.on('response', (answer) => {
      const { statusCode: status = 500, headers } = answer;
      if (/^text\/event-stream\b/i.test(headers['content-type'] ?? ''))
        return settle({ kind: 'stream', status, headers });
      const chunks: Buffer[] = [];
      let size = 0;
      answer.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > request.maxResponseBytes) {
          answer.removeAllListeners('data');
          settle({ kind: 'too-large', status, headers });
          return;
        }
        chunks.push(chunk);
      });
      answer.on('end', () => settle({ kind: 'complete', status, headers, body: Buffer.concat(chunks) }));
      answer.on('error', (error) => reject(error));
    });
    server.emit('connection', serverEnd);
    outgoing.end(request.body);
  });
}
