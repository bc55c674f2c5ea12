import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpHeaders, mcpMessage, sseMessages } from '../../src/testing/index.js';
import {
  McpHttpDriver,
  McpKernel,
  type HttpRejection,
  type McpHttpAuthenticator,
  type McpHttpOptions,
  type PreparedBody,
} from '../../src/core/index.js';

/** The kernel and driver over a bare Node server on 127.0.0.1: the transport without Nest. */
async function serve(kernel: McpKernel, options: McpHttpOptions = {}) {
  const driver = new McpHttpDriver(kernel, options);
  const arrived: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    arrived.shift()?.();
    // What a framework does with a rejected handler: a bare status, no JSON-RPC body.
    driver.handle(req, res).catch(() => res.writeHead(599).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    driver,
    port,
    /** Resolves once the next request's head reached the driver. */
    nextArrival: () => new Promise<void>((resolve) => arrived.push(resolve)),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Answer {
  status: number;
  type: string | undefined;
  text: string;
}

/** POSTs `body` in two writes; `between` runs after the first half was sent. */
function postInTwo(
  port: number,
  body: Record<string, unknown>,
  between: () => Promise<void> = async () => undefined,
): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        headers: { ...mcpHeaders(body), host: '127.0.0.1', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (out += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], text: out }));
      },
    );
    req.on('error', reject);
    req.write(text.slice(0, 10));
    void between().then(() => req.end(text.slice(10)));
  });
}

describe('McpHttpDriver', () => {
  it('drops a notification whose UTF-8 size is over maxResponseBytes, though its length in characters is under it', async () => {
    const kernel = new McpKernel({ name: 't', version: '1' });
    // 400 characters, 1,200 bytes of UTF-8.
    kernel.registerTool('shout', 'Logs a long line', { type: 'object' }, (_args, _answers, ctx) => {
      ctx.log('info', '€'.repeat(400));
      return 'done';
    });
    const fx = await serve(kernel, { maxResponseBytes: 1_000 });
    try {
      const answer = await postInTwo(
        fx.port,
        mcpMessage(
          'tools/call',
          { name: 'shout', arguments: {} },
          { meta: { 'io.modelcontextprotocol/logLevel': 'info' } },
        ),
      );
      const messages = answer.type === 'text/event-stream' ? sseMessages(answer.text) : [JSON.parse(answer.text)];
      expect(messages.filter((m) => m.method === 'notifications/message')).toEqual([]);
      expect(messages.at(-1)).toMatchObject({ result: { content: [{ type: 'text', text: 'done' }] } });
    } finally {
      await fx.stop();
    }
  });

  it('refuses with 503 a request whose body was still arriving when close() began, instead of running it after the drain', async () => {
    const kernel = new McpKernel({ name: 't', version: '1' });
    let ran = 0;
    kernel.registerTool('work', 'Counts its calls', { type: 'object' }, () => ++ran);
    const fx = await serve(kernel);
    try {
      const arrival = fx.nextArrival();
      const answer = await postInTwo(
        fx.port,
        mcpMessage('tools/call', { name: 'work', arguments: {} }, { id: 7 }),
        async () => {
          await arrival;
          await fx.driver.close();
        },
      );
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } });
      expect(ran).toBe(0);
    } finally {
      await fx.stop();
    }
  });

  it('serves a body another framework already parsed, after the preflight it runs itself (the types of a front layer are public)', async () => {
    const kernel = new McpKernel({ name: 't', version: '1' });
    kernel.registerTool('echo', 'Echoes', { type: 'object' }, (args: { text?: string }) => args.text ?? '');
    const driver = new McpHttpDriver(kernel);
    const body = mcpMessage('tools/call', { name: 'echo', arguments: { text: 'parsed elsewhere' } });
    const server = createServer((req, res) => {
      const refusal: HttpRejection | null = driver.preflight(req);
      if (refusal) return driver.reject(res, refusal);
      const prepared: PreparedBody = { parsed: body };
      req.resume();
      void driver.handle(req, res, prepared);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const answer = await postInTwo(port, body);
      expect(JSON.parse(answer.text)).toMatchObject({
        result: { content: [{ type: 'text', text: 'parsed elsewhere' }] },
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('lets go of a request whose client left while it was being authenticated, instead of waiting for a body that cannot come', async () => {
    const kernel = new McpKernel({ name: 't', version: '1' });
    let ran = 0;
    kernel.registerTool('work', 'Counts its calls', { type: 'object' }, () => ++ran);
    let authenticated!: () => void;
    const authenticating = new Promise<void>((resolve) => (authenticated = resolve));
    // Read in the route: the body is read only once the caller is known, and here the caller left by then.
    const authenticator: McpHttpAuthenticator = {
      afterGuards: true,
      authenticate: async () => {
        await authenticating;
        return { ok: true, principal: 'someone', scopes: [] };
      },
      insufficientScopeHeaders: () => ({}),
    };
    // No body deadline: only the request's own state can end the wait.
    const driver = new McpHttpDriver(kernel, { authenticator, bodyTimeoutMs: 0 });
    let handled!: Promise<void>;
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    let left!: () => void;
    const gone = new Promise<void>((resolve) => (left = resolve));
    const server = createServer((req, res) => {
      req.once('close', left);
      handled = driver.handle(req, res);
      arrived();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const body = JSON.stringify(mcpMessage('tools/call', { name: 'work', arguments: {} }, { id: 4 }));
      const client = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        headers: { ...mcpHeaders(JSON.parse(body)), host: '127.0.0.1', 'content-length': Buffer.byteLength(body) },
      });
      client.on('error', () => undefined);
      client.write(body.slice(0, 10));
      await arrival;
      client.destroy();
      await gone;
      authenticated();
      await handled;
      expect(ran).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('answers 500 -32603 in JSON-RPC form when the authenticator throws, instead of rejecting to the framework', async () => {
    const kernel = new McpKernel({ name: 't', version: '1' });
    kernel.registerTool('echo', 'Echoes', { type: 'object' }, () => 'unreachable');
    const authenticator: McpHttpAuthenticator = {
      authenticate: async () => {
        throw new Error('session store down');
      },
      insufficientScopeHeaders: () => ({}),
    };
    const fx = await serve(kernel, { authenticator });
    try {
      const answer = await postInTwo(fx.port, mcpMessage('tools/call', { name: 'echo', arguments: {} }, { id: 3 }));
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.text)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32603, message: 'Internal error: the caller could not be authenticated' },
      });
    } finally {
      await fx.stop();
    }
  });
});
