import {
  request as httpRequest,
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The smallest load balancer that shows whether several instances behave as one server: each request goes to
 * the next upstream in turn, with no affinity of any kind, and its response (JSON or an open event stream) is
 * piped back as it arrives. A client that goes away takes its upstream request with it.
 */
export class RoundRobinProxy {
  private next = 0;
  private readonly server: Server;
  /** How many requests each upstream got, in the order of `upstreams`. */
  readonly counts: number[];

  private constructor(private readonly upstreams: readonly URL[]) {
    this.counts = upstreams.map(() => 0);
    this.server = createServer((req, res) => this.forward(req, res));
  }

  /** Listens on 127.0.0.1 and a free port; `upstreams` are origins such as `http://127.0.0.1:3001`. */
  static async start(upstreams: readonly string[]): Promise<RoundRobinProxy> {
    const proxy = new RoundRobinProxy(upstreams.map((upstream) => new URL(upstream)));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const index = this.next++ % this.upstreams.length;
    this.counts[index]++;
    const upstream = this.upstreams[index];
    // Host names the upstream, as a load balancer that terminates the connection does (the instances only
    // accept loopback hosts).
    const headers = { ...req.headers, host: upstream.host };
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.on('close', () => out.destroy());
    req.pipe(out);
  }
}
