import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Body, Controller, Post, type INestApplication } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { applyServerTimeouts } from '../../src/http/policy/server-timeouts.js';
import { McpModule } from '../../src/index.js';
import { mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { openStream, startFixture, waitFor } from './fixture.js';

// Volume and timing tests: generous bounds for a loaded 2-core CI machine (they assert correctness, not speed).
jest.setTimeout(60_000);

describe('R14: graceful shutdown', () => {
  it('on app.close(): 503 for new requests, closing result for listen streams, short calls finish, long ones are aborted at the drain deadline', async () => {
    const fx = await startFixture({ http: { drainTimeoutMs: 1_500 }, limits: { callTimeoutMs: 0 } }, true);
    const listen = openStream(
      fx.port,
      mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'L' }),
    );
    const short = openStream(
      fx.port,
      mcpMessage('tools/call', { name: 'slowProgress', arguments: { n: 5 } }, { id: 'S' }),
    );
    const long = openStream(fx.port, mcpMessage('tools/call', { name: 'hang', arguments: {} }, { id: 'H' }));
    await waitFor(
      () => fx.server.load.calls === 2 && fx.server.load.subscriptions === 1,
      5_000,
      'calls and stream to start',
    );
    const aborted = fx.aborted();

    const closed = fx.app.close();
    await waitFor(() => listen.messages().some((m) => m.id === 'L'), 5_000, 'the listen closing result');
    const late = await fx.mcp.post(mcpMessage('tools/list'));
    expect(late.status).toBe(503);
    expect(late.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32603 } });
    expect(late.headers.connection).toBe('close');
    await closed;

    await Promise.all([listen.ended, short.ended, long.ended]);
    expect(listen.messages().at(-1)).toMatchObject({
      id: 'L',
      result: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L' } },
    });
    expect(JSON.parse(short.text())).toMatchObject({ id: 'S', result: { content: [{ text: 'done S' }] } });
    expect(JSON.parse(long.text())).toMatchObject({
      jsonrpc: '2.0',
      id: 'H',
      error: { code: -32603, message: 'Server is shutting down' },
    });
    expect(fx.aborted()).toBe(aborted + 1);
    expect(fx.server.load).toEqual({ calls: 0, subscriptions: 0 });
  });
});

describe('R12 and the opt-in server timeouts', () => {
  it('slowloris: slow sockets are cut by the opt-in server timeouts while normal calls keep being served', async () => {
    const fx = await startFixture({ http: { serverTimeouts: TIGHT } }, true);
    const slow: Socket[] = [];
    const closed = new Set<Socket>();
    const responses: string[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        const socket = connect(fx.port, '127.0.0.1');
        socket.on('data', (chunk) => responses.push(chunk.toString('latin1')));
        socket.on('close', () => closed.add(socket));
        socket.on('error', () => undefined);
        socket.write(
          i % 2 === 0
            ? 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '
            : 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"js',
        );
        slow.push(socket);
      }
      for (let i = 0; i < 20; i++)
        expect(
          (await fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: `n${i}` } }))).status,
        ).toBe(200);
      await waitFor(() => closed.size === slow.length, 5_000, 'every slow socket to be closed by the server');
      expect(responses.filter((r) => r.startsWith('HTTP/1.1 408')).length).toBeGreaterThan(0);
    } finally {
      slow.forEach((s) => s.destroy());
      await fx.app.close();
    }
  });

  it('applyServerTimeouts sets a self-made server; the opt-in leaves values the application chose', async () => {
    const own = createServer();
    applyServerTimeouts(own, { requestTimeoutMs: 5_000, headersTimeoutMs: 3_000, checkIntervalMs: 500 });
    expect(serverTimeouts(own)).toEqual([5_000, 3_000, 5_000, 500]);
    const chosen = createServer();
    chosen.requestTimeout = 12_345;
    applyServerTimeouts(chosen, {}, true);
    expect(chosen.requestTimeout).toBe(12_345);
    expect(chosen.headersTimeout).toBe(10_000);

    const optedIn = await startFixture({ http: { serverTimeouts: true } });
    expect(serverTimeouts(optedIn.app.getHttpServer())).toEqual([30_000, 10_000, 5_000, 1_000]);
    await optedIn.app.close();
  });

  it('opt-in: a stalled upload to another route of the app is cut by the server timeouts too', async () => {
    const app = await createApp(
      [McpModule.forRoot({ name: 'opt-in', version: '1.0.0', http: { serverTimeouts: TIGHT } })],
      [],
      'express',
      [UploadController],
    );
    try {
      const port = await listen(app);
      const other = stall(port, '/upload');
      await other.closed;
      expect(other.response()).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await app.close();
    }
  });
});

describe('the host app by default: only the MCP route is bounded', () => {
  it("Express and Fastify: the server keeps the app's own timeouts; a stalled MCP body gets 408 after the route's 30 s, a stalled upload to another route is left open and then served", async () => {
    await Promise.all(
      HTTP_ADAPTERS.map(async (adapter) => {
        const bare = await createApp([], [], adapter, [UploadController]);
        const app = await createApp([McpModule.forRoot({ name: 'defaults', version: '1.0.0' })], [], adapter, [
          UploadController,
        ]);
        try {
          expect(serverTimeouts(app.getHttpServer())).toEqual(serverTimeouts(bare.getHttpServer()));
          const port = await listen(app);
          const other = stall(port, '/upload');
          const mcp = stall(port, '/mcp');
          await mcp.closed;
          const answer = mcp.response();
          expect(answer).toMatch(/^HTTP\/1\.1 408/);
          expect(answer).toMatch(/connection: close/i);
          expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32600, message: 'Request body did not arrive within 30000 ms' },
          });
          expect([other.isClosed(), other.response()]).toEqual([false, '']);
          other.finish();
          await other.closed;
          expect(other.response()).toMatch(/^HTTP\/1\.1 201[^]*\{"got":\{"j":1\}\}$/);
        } finally {
          await Promise.all([app.close(), bare.close()]);
        }
      }),
    );
  });
});

const TIGHT = { headersTimeoutMs: 500, requestTimeoutMs: 800, checkIntervalMs: 100 };

@Controller('upload')
class UploadController {
  @Post()
  upload(@Body() body: unknown): unknown {
    return { got: body };
  }
}

function serverTimeouts(server: Server): number[] {
  const { requestTimeout, headersTimeout, keepAliveTimeout } = server;
  return [
    requestTimeout,
    headersTimeout,
    keepAliveTimeout,
    (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval,
  ];
}

async function listen(app: INestApplication): Promise<number> {
  await app.listen(0, '127.0.0.1');
  return (app.getHttpServer().address() as { port: number }).port;
}

/** A JSON POST whose body stops after its first bytes; `finish` sends the rest (`{"j":1}` in all). */
function stall(port: number, path: string) {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let closed = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  const ended = new Promise<void>((resolve) =>
    socket.on('close', () => {
      closed = true;
      resolve();
    }),
  );
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"j`,
  );
  return {
    closed: ended,
    isClosed: () => closed,
    response: () => Buffer.concat(chunks).toString('utf8'),
    finish: () => socket.write('":1}'),
  };
}
