import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import { McpModule } from '../../src/index.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

/**
 * An oversized body gets its 413 JSON-RPC error even when the client is still writing (security round 2,
 * finding 8): the server reads and drops the rest (to a bound and a deadline) before it answers and closes,
 * so Node's http client and fetch read the error instead of `write EPIPE` or a reset.
 */
const LIMIT = 4 * 1024 * 1024;
const body = (bytes: number) => {
  const message = mcpMessage('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(bytes) } });
  return { message, text: JSON.stringify(message) };
};

// Each case makes and writes tens of MiB: half a second on an idle machine, several on a loaded one, where jest's
// default 5 s would fail a correct server.
jest.setTimeout(60_000);

describe.each(HTTP_ADAPTERS)('security round 2: a 413 a client still writing can read (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await createApp(
      [McpModule.forRoot({ name: 'big', version: '1.0.0', http: { maxBodyBytes: LIMIT } })],
      [],
      adapter,
    );
    await app.listen(0, '127.0.0.1');
    url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
  });
  afterAll(() => app.close());

  it("answers Node's http client, writing 30 MiB with a Content-Length, with the 413 error body", async () => {
    const { message, text } = body(30 * 1024 * 1024);
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: mcpHeaders(message) }, (res) => {
        let received = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (received += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text: received }));
      });
      req.on('error', reject);
      // Written in pieces, as a client streaming its body does.
      for (let at = 0; at < text.length; at += 64 * 1024) req.write(text.slice(at, at + 64 * 1024));
      req.end();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it("answers Node's http client writing 8 MiB at the pace the socket takes it, with no write failing", async () => {
    const { message, text } = body(8 * 1024 * 1024);
    const bytes = Buffer.from(text);
    const errors: string[] = [];
    const answer = await new Promise<{ status?: number; text: string }>((resolve) => {
      const seen: { status?: number; text: string } = { text: '' };
      const req = httpRequest(url, { method: 'POST', headers: mcpHeaders(message) }, (res) => {
        seen.status = res.statusCode;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (seen.text += chunk));
      });
      // A write that fails (EPIPE, a reset), even after the answer arrived, is what a client sees of a broken
      // 413: the request ends in an error, whatever was read of the answer.
      req.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
      req.on('close', () => resolve(seen));
      // Each piece after the last has drained, as a client streaming from a file does: the server answers while
      // most of the body is still to come.
      let at = 0;
      const writeMore = (): void => {
        while (at < bytes.length) {
          const piece = bytes.subarray(at, at + 16 * 1024);
          at += piece.length;
          if (!req.write(piece)) {
            req.once('drain', writeMore);
            return;
          }
        }
        req.end();
      };
      writeMore();
    });
    expect(errors).toEqual([]);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('answers fetch, writing a chunked body that grows past the limit, with the 413 error body', async () => {
    const { message, text } = body(30 * 1024 * 1024);
    const bytes = new TextEncoder().encode(text);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
        controller.close();
      },
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: mcpHeaders(message),
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });
});
