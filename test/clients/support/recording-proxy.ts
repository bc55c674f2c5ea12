import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One HTTP exchange as it crossed the proxy. */
export interface WireExchange {
  method: string;
  requestHeaders: IncomingHttpHeaders;
  /** The JSON-RPC messages of the request body (a batch flattened), empty for a body that is not JSON. */
  sent: Array<Record<string, unknown>>;
  status: number;
  responseHeaders: IncomingHttpHeaders;
  /** The response body so far: an SSE stream that is still open keeps growing. */
  responseText: string;
}

/** The JSON-RPC messages of a response: its JSON body, or every SSE `data:` frame in order. */
export function receivedMessages(exchange: WireExchange): Array<Record<string, unknown>> {
  return parseMessages(exchange.responseText);
}

/**
 * A logging reverse proxy between a real client and the app: it forwards every request as is and streams every
 * response back as it arrives (a server→client request on an open SSE stream must reach the client before the
 * POST ends), and keeps a copy of both sides so a test can assert what went over the wire.
 */
export class RecordingProxy {
  readonly exchanges: WireExchange[] = [];
  private readonly agent = new Agent({ keepAlive: true });

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Listens on 127.0.0.1, a free port, forwarding to `target` (an `http://127.0.0.1:port/path` URL); `url` keeps the path. */
  static async start(target: string): Promise<RecordingProxy> {
    const upstream = new URL(target);
    let proxy: RecordingProxy | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers = { ...req.headers, host: upstream.host };
        const forward = request(
          {
            host: upstream.hostname,
            port: upstream.port,
            path: req.url,
            method: req.method,
            headers,
            agent: proxy!.agent,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            const exchange: WireExchange = {
              method: req.method ?? '',
              requestHeaders: req.headers,
              sent: parseMessages(body.toString('utf8')),
              status: answer.statusCode ?? 0,
              responseHeaders: answer.headers,
              responseText: '',
            };
            proxy!.exchanges.push(exchange);
            answer.setEncoding('utf8');
            answer.on('data', (chunk: string) => {
              exchange.responseText += chunk;
              res.write(chunk);
            });
            answer.on('end', () => res.end());
            answer.on('error', () => res.destroy());
          },
        );
        forward.on('error', () => res.destroy());
        // A client that gives up on a stream must end the upstream POST too, as it would without the proxy.
        res.on('close', () => forward.destroy());
        forward.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new RecordingProxy(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`,
    );
    return proxy;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }
}

/** JSON-RPC messages from a JSON body (object or batch) or an SSE stream; anything else yields none. */
function parseMessages(text: string): Array<Record<string, unknown>> {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return flatten(tryParse(trimmed));
  return trimmed
    .split(/\r?\n\r?\n/)
    .map((frame) =>
      frame
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '')
    .flatMap((data) => flatten(tryParse(data)));
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function flatten(value: unknown): Array<Record<string, unknown>> {
  const items = Array.isArray(value) ? value : [value];
  return items.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}
