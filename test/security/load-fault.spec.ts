import 'reflect-metadata';
import { jest } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import {
  expectStillServing,
  openStream,
  startFixture,
  waitFor,
  withoutUnhandledRejections,
  type Fixture,
} from './fixture.js';

// Volume and timing tests: generous bounds for a loaded 2-core CI machine (they assert correctness, not speed).
jest.setTimeout(60_000);

// The reduced form of the security.md §5.3 plan that CI runs: a few seconds each, asserting correctness (every
// answer right, nothing leaked, nothing dispatched that should not be), never speed. The full, timed versions
// are the scripts in bench/security/.

/** Runs `count` tasks with at most `concurrency` at once. */
async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

interface Answer {
  status: number;
  body: string;
  error?: string;
}

function postRaw(port: number, headers: Record<string, string>, body: Buffer, signal?: AbortSignal): Promise<Answer> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (e: NodeJS.ErrnoException) =>
          resolve({ status: res.statusCode ?? 0, body: '', error: e.code ?? e.name }),
        );
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, body: '', error: e.code ?? e.name }));
    req.end(body);
  });
}

const json = (body: Record<string, unknown>) => ({
  headers: mcpHeaders(body),
  bytes: Buffer.from(JSON.stringify(body)),
});

describe('load and faults, reduced for CI', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture(
      { limits: { callTimeoutMs: 300, maxConcurrentCalls: 1_000 }, http: { maxBodyBytes: 1024 * 1024 } },
      true,
    );
  });
  afterAll(() => fx.app.close());

  it('L3 same-id isolation: 5 rounds of 200 concurrent id-1 calls, every answer its own', async () => {
    for (let round = 0; round < 5; round++) {
      const answers = await pool(200, 200, (i) => {
        const { headers, bytes } = json(
          mcpMessage('tools/call', { name: 'echo', arguments: { text: `r${round}-${i}` } }, { id: 1 }),
        );
        return postRaw(fx.port, headers, bytes);
      });
      answers.forEach((a, i) =>
        expect(JSON.parse(a.body)).toMatchObject({ id: 1, result: { content: [{ text: `r${round}-${i}` }] } }),
      );
    }
  });

  it('L6 abort storm: 300 hanging calls aborted by their clients, every handler signal fires, in-flight back to 0', async () => {
    await withoutUnhandledRejections(async () => {
      const aborted = fx.aborted();
      // Each client aborts once its own call has reached the handler: a fixed client timeout could fire while the
      // request is still queued on a busy machine, and a call that never started has no signal to fire.
      const answers = await pool(300, 50, async (i) => {
        const tag = `l6-${i}`;
        const { headers, bytes } = json(mcpMessage('tools/call', { name: 'hang', arguments: { tag } }));
        const client = new AbortController();
        const answer = postRaw(fx.port, headers, bytes, client.signal);
        await waitFor(() => fx.started(tag), 5_000, `call ${tag} to start`);
        client.abort();
        return answer;
      });
      expect(answers.every((a) => a.status === 0 && a.error !== undefined)).toBe(true);
      await waitFor(() => fx.aborted() === aborted + 300 && fx.server.load.calls === 0, 5_000, 'every abort');
      await expectStillServing(fx);
    });
  });

  it('L8 deadline: 50 concurrent hanging calls each end with the timeout result, in-flight back to 0', async () => {
    const { headers, bytes } = json(mcpMessage('tools/call', { name: 'hang', arguments: {} }));
    const answers = await pool(50, 50, () => postRaw(fx.port, headers, bytes));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body).result).toMatchObject({
        isError: true,
        content: [{ text: 'Error: Request timed out: no result within 300 ms' }],
      });
    }
    expect(fx.server.load.calls).toBe(0);
  });

  it('L9 handler errors under load: 500 boom calls, all isError, the secret never in a body', async () => {
    const { headers, bytes } = json(mcpMessage('tools/call', { name: 'boom', arguments: {} }));
    const answers = await pool(500, 16, () => postRaw(fx.port, headers, bytes));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body).result.isError).toBe(true);
      expect(a.body).not.toContain('/srv/app');
    }
  });

  it('L13 oversize storm: 100 bodies of 2 MiB and 20 gzip bombs, all 413, nothing dispatched', async () => {
    const before = fx.calls();
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    const echo = mcpHeaders(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'x' } }));
    const answers = await pool(120, 16, (i) =>
      i < 100 ? postRaw(fx.port, echo, big) : postRaw(fx.port, { ...echo, 'content-encoding': 'gzip' }, bomb),
    );
    for (const a of answers) {
      // A client still writing when the 413 arrives may see the socket reset instead; never anything else.
      if (a.status === 0) expect(['ECONNRESET', 'EPIPE']).toContain(a.error);
      else expect(a.status).toBe(413);
    }
    expect(answers.filter((a) => a.status === 413).length).toBeGreaterThan(0);
    expect(fx.calls()).toBe(before);
    await expectStillServing(fx);
  });
});

describe('L15 shutdown under load, reduced', () => {
  it('every request gets a correct 200, a 503, or a refused connection; streams close cleanly; never a 5xx other than 503', async () => {
    const fx = await startFixture({ http: { drainTimeoutMs: 300 }, limits: { callTimeoutMs: 0 } }, true);
    const listens = Array.from({ length: 4 }, (_, i) =>
      openStream(
        fx.port,
        mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: `L${i}` }),
      ),
    );
    const progress = Array.from({ length: 4 }, (_, i) =>
      openStream(
        fx.port,
        mcpMessage(
          'tools/call',
          { name: 'slowProgress', arguments: { n: 100 } },
          { id: `P${i}`, meta: { progressToken: i } },
        ),
      ),
    );
    await waitFor(() => fx.server.load.subscriptions === 4 && fx.server.load.calls >= 4, 5_000, 'streams to open');
    let stop = false;
    const answers: Answer[] = [];
    const load = pool(8, 8, async (worker) => {
      for (let i = 0; !stop; i++) {
        const { headers, bytes } = json(
          mcpMessage('tools/call', { name: 'echo', arguments: { text: `w${worker}-${i}` } }, { id: i }),
        );
        const answer = await postRaw(fx.port, headers, bytes);
        answers.push(answer);
        if (answer.status === 200) expect(JSON.parse(answer.body).result.content[0].text).toBe(`w${worker}-${i}`);
        if (answer.status === 0) break;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await fx.app.close();
    stop = true;
    await load;
    await Promise.all([...listens, ...progress].map((s) => s.ended));

    expect(answers.length).toBeGreaterThan(0);
    for (const a of answers) expect([200, 503, 0]).toContain(a.status);
    for (const [i, s] of listens.entries()) expect(s.messages().at(-1)).toMatchObject({ id: `L${i}`, result: {} });
    for (const [i, s] of progress.entries())
      expect(s.messages().at(-1)).toMatchObject({
        id: `P${i}`,
        error: { code: -32603, message: 'Server is shutting down' },
      });
    expect(fx.server.load).toEqual({ calls: 0, subscriptions: 0 });
  });
});
