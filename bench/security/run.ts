import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';

/**
 * The bounded load and fault plan of security.md §5.3 (L1-L16), loopback only. Each test forks a fresh server
 * (bench/security/server.ts), prints its figures and whether the §5.3 target was met. Bounded by duration and
 * count; `--quick` divides durations and counts by 10 for a smoke run. Never run by `npm test`.
 *
 *   npm run build:all && taskset -c 1 node build/bench/security/run.js [L1 L2 ... | all] [--quick]
 */
const QUICK = process.argv.includes('--quick');
const scale = (n: number) => (QUICK ? Math.max(1, Math.ceil(n / 10)) : n);
const SERVER = join(dirname(fileURLToPath(import.meta.url)), 'server.js');

interface Stats {
  heapUsed: number;
  rss: number;
  calls: number;
  subscriptions: number;
  dispatched: number;
  aborted: number;
  activeResources: number;
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

interface Server {
  port: number;
  child: ChildProcess;
  stats(): Promise<Stats>;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();
// A runner that fails must not leave a server behind.
process.on('exit', () => running.forEach((child) => child.kill('SIGKILL')));

async function startServer(): Promise<Server> {
  // Pinned to core 0 when taskset exists; the load generator is meant to run pinned to core 1.
  const pinned = existsSync('/usr/bin/taskset');
  const child = fork(SERVER, [], {
    execPath: pinned ? '/usr/bin/taskset' : process.execPath,
    execArgv: pinned ? ['-c', '0', process.execPath, '--expose-gc'] : ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', () => reject(new Error('server exited before it was ready')));
  });
  const stats = () =>
    new Promise<Stats>((resolve) => {
      child.once('message', (m) => resolve(m as Stats));
      child.send('stats');
    });
  return { port, child, stats, exited };
}

async function stop(server: Server): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

interface Answer {
  status: number;
  body: string;
  ms: number;
  error?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function post(
  port: number,
  body: Buffer | Record<string, unknown>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Answer> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  const all = {
    ...(Buffer.isBuffer(body) ? { 'content-type': 'application/json' } : mcpHeaders(body)),
    ...headers,
    'content-length': String(bytes.length),
  };
  const start = performance.now();
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: all, agent, signal },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - start,
          }),
        );
        res.on('error', (e: NodeJS.ErrnoException) =>
          resolve({ status: res.statusCode ?? 0, body: '', ms: performance.now() - start, error: e.code ?? e.name }),
        );
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ status: 0, body: '', ms: performance.now() - start, error: e.code ?? e.name }),
    );
    req.end(bytes);
  });
}

async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/** The JSON-RPC response of an answer: the JSON body, or the last message of an SSE stream. */
interface RpcAnswer {
  id?: unknown;
  result?: { isError?: boolean; content?: Array<{ text?: string }> };
  error?: { code?: number; message?: string };
}

function parse(body: string): RpcAnswer {
  if (!body.startsWith('event:') && !body.startsWith(':')) return JSON.parse(body || '{}');
  const data = body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .at(-1);
  return data ? JSON.parse(data.slice(6)) : {};
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const call = (name: string, args: Record<string, unknown>, id: number | string = 1, meta?: Record<string, unknown>) =>
  mcpMessage('tools/call', { name, arguments: args }, { id, meta });
const results: Array<{ test: string; pass: boolean }> = [];
function report(test: string, pass: boolean, figures: Record<string, unknown>): void {
  results.push({ test, pass });
  console.log(`${test} ${pass ? 'PASS' : 'FAIL'} ${JSON.stringify(figures)}`);
}

function echoCannon(
  port: number,
  options: { connections: number; duration?: number; amount?: number; tool?: string },
): Promise<autocannon.Result> {
  const body = call(options.tool ?? 'echo', options.tool === 'boom' ? {} : { text: 'hi' });
  return autocannon({
    url: `http://127.0.0.1:${port}/mcp`,
    method: 'POST',
    headers: mcpHeaders(body),
    body: JSON.stringify(body),
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.duration }),
  });
}

const plan: Record<string, () => Promise<void>> = {
  async L1() {
    const server = await startServer();
    await echoCannon(server.port, { connections: 4, duration: scale(5) });
    await server.stats();
    const r = await echoCannon(server.port, { connections: 16, duration: scale(30) });
    const s = await server.stats();
    report(
      'L1 steady throughput',
      r.errors === 0 && r.timeouts === 0 && r.non2xx === 0 && r.latency.p99 < 300 && s.loopDelayP99Ms < 50,
      {
        reqPerSec: r.requests.average,
        p50: r.latency.p50,
        p97_5: r.latency.p97_5,
        p99: r.latency.p99,
        errors: r.errors,
        timeouts: r.timeouts,
        non2xx: r.non2xx,
        loopDelayP99Ms: s.loopDelayP99Ms,
      },
    );
    await stop(server);
  },

  async L2() {
    const server = await startServer();
    const n = scale(20_000);
    const answers = await pool(n, 32, (i) => post(server.port, call('echo', { text: `c${i}` }, i)));
    const correct = answers.filter((a, i) => {
      const body = parse(a.body);
      return body.id === i && body.result?.content?.[0]?.text === `c${i}`;
    }).length;
    report('L2 correctness under load', correct === n, {
      correct,
      of: n,
      p99: percentile(
        answers.map((a) => a.ms),
        99,
      ),
    });
    await stop(server);
  },

  async L3() {
    const server = await startServer();
    let correct = 0;
    for (let round = 0; round < 5; round++) {
      const answers = await pool(200, 200, (i) => post(server.port, call('echo', { text: `r${round}-${i}` }, 1)));
      correct += answers.filter((a, i) => parse(a.body).result?.content?.[0]?.text === `r${round}-${i}`).length;
    }
    const streams = await Promise.all(
      ['A', 'B'].map((tag) => post(server.port, call('slowProgress', { n: 10 }, 1, { progressToken: tag }))),
    );
    const own = streams.every((a, i) => {
      const tokens = [...a.body.matchAll(/"progressToken":"(\w)"/g)].map((m) => m[1]);
      return tokens.length === 10 && tokens.every((t) => t === ['A', 'B'][i]);
    });
    report('L3 same-id isolation', correct === 1_000 && own, { correct, of: 1_000, streamsSeeOnlyOwnProgress: own });
    await stop(server);
  },

  async L4() {
    const server = await startServer();
    const rounds: Stats[] = [];
    const errors: number[] = [];
    for (let round = 1; round <= 5; round++) {
      const r = await echoCannon(server.port, { connections: 16, duration: scale(60) });
      errors.push(r.errors + r.timeouts + r.non2xx);
      await sleep(5_000);
      const s = await server.stats();
      rounds.push(s);
      console.log(
        `  round ${round}: ${r.requests.average} req/s, p99 ${r.latency.p99} ms, heap ${mb(s.heapUsed)}, rss ${mb(s.rss)}, active resources ${s.activeResources}, in-flight ${s.calls}, errors ${errors.at(-1)}`,
      );
    }
    const heapGrowth = rounds[4].heapUsed - rounds[1].heapUsed;
    const rssGrowth = (rounds[4].rss - rounds[1].rss) / rounds[1].rss;
    const resources = Math.abs(rounds[4].activeResources - rounds[0].activeResources);
    report(
      'L4 soak',
      heapGrowth < 5 * 1024 * 1024 &&
        rssGrowth < 0.1 &&
        resources <= 2 &&
        rounds[4].calls === 0 &&
        errors.every((e) => e === 0),
      {
        heapGrowthRound2To5: mb(heapGrowth),
        rssGrowthRound2To5: `${(rssGrowth * 100).toFixed(1)} %`,
        activeResourcesDelta: resources,
        errors: errors.reduce((a, b) => a + b, 0),
      },
    );
    await stop(server);
  },

  async L5() {
    const server = await startServer();
    const echo = call('echo', { text: 'x' });
    const h = mcpHeaders(echo);
    const text = JSON.stringify(echo);
    // [body, extra headers, status, code]
    const table: Array<[string | Buffer, Record<string, string>, number, number | null]> = [
      ['{not json', h, 400, -32700],
      ['', h, 400, -32700],
      ['1', h, 400, -32600],
      ['[]', h, 400, -32600],
      [`[${text}]`, h, 400, -32600],
      ['{"jsonrpc":"2.0","id":5,"result":{}}', h, 400, -32600],
      [text.replace('"id":1', '"id":null'), h, 400, -32600],
      [text.replace('"id":1', '"id":1.5'), h, 400, -32600],
      [text.replace('"jsonrpc":"2.0"', '"jsonrpc":"1.0"'), h, 400, -32600],
      [text, { ...h, 'mcp-method': 'tools/list' }, 400, -32020],
      [text, { ...h, 'mcp-name': 'other' }, 400, -32020],
      [text, { ...h, 'mcp-protocol-version': '2025-06-18' }, 400, -32020],
      [JSON.stringify({ ...echo, params: { name: 'echo', arguments: { text: 'x' } } }), h, 400, -32602],
      [JSON.stringify(mcpMessage('nope/nope')), mcpHeaders(mcpMessage('nope/nope')), 404, -32601],
      [text, { ...h, 'content-type': 'text/plain' }, 415, -32600],
      [text, { ...h, 'content-type': 'text/plain; a=application/json' }, 415, -32600],
      [text, { ...h, 'content-encoding': 'bogus' }, 415, -32600],
      [Buffer.alloc(1024 * 1024 + 1, 0x20), h, 413, -32600],
      [text, { ...h, origin: 'http://evil.example' }, 403, -32600],
      [text, { ...h, host: 'evil.example' }, 403, -32600],
    ];
    const before = await server.stats();
    const n = scale(20_000);
    const answers = await pool(n, 16, (i) => {
      const [body, headers] = table[i % table.length];
      return post(server.port, Buffer.isBuffer(body) ? body : Buffer.from(body), headers);
    });
    const wrong = answers.filter((a, i) => {
      const [, , status, code] = table[i % table.length];
      // A client still writing an oversized body when the 413 arrives may see the reset instead.
      if (status === 413 && a.status === 0) return a.error !== 'ECONNRESET' && a.error !== 'EPIPE';
      return a.status !== status || (code !== null && parse(a.body).error?.code !== code);
    }).length;
    const after = await server.stats();
    const fiveXx = answers.filter((a) => a.status >= 500).length;
    report(
      'L5 error-path soak',
      wrong === 0 &&
        fiveXx === 0 &&
        after.dispatched === before.dispatched &&
        after.heapUsed - before.heapUsed < 5 * 1024 * 1024,
      {
        requests: n,
        wrong,
        fiveXx,
        dispatched: after.dispatched - before.dispatched,
        heapGrowth: mb(after.heapUsed - before.heapUsed),
      },
    );
    await stop(server);
  },

  async L6() {
    const server = await startServer();
    const n = scale(1_000);
    await pool(n, 50, () => post(server.port, call('hang', {}), {}, AbortSignal.timeout(100)));
    const lastAbort = performance.now();
    let s = await server.stats();
    while ((s.aborted < n || s.calls > 0) && performance.now() - lastAbort < 5_000) s = await server.stats();
    const settleMs = performance.now() - lastAbort;
    const next = await echoCannon(server.port, { connections: 16, amount: scale(2_000) });
    report(
      'L6 abort storm',
      s.aborted === n && s.calls === 0 && settleMs < 1_000 && next.errors === 0 && next.non2xx === 0,
      {
        abortsSeen: s.aborted,
        of: n,
        inFlight: s.calls,
        settleMs: Math.round(settleMs),
        nextBurstErrors: next.errors + next.non2xx,
        serverAlive: server.child.exitCode === null,
      },
    );
    await stop(server);
  },

  async L7() {
    const server = await startServer();
    const n = scale(200);
    await pool(
      n,
      n,
      (i) =>
        new Promise<void>((resolve) => {
          const body = call('slowProgress', { n: 50 }, i, { progressToken: i });
          const req = httpRequest(
            { host: '127.0.0.1', port: server.port, path: '/mcp', method: 'POST', headers: mcpHeaders(body) },
            (res) => {
              let events = 0;
              res.on('data', (chunk: Buffer) => {
                events += (chunk.toString().match(/^event: message$/gm) ?? []).length;
                if (events >= 3) req.destroy();
              });
              res.on('close', resolve);
            },
          );
          req.on('error', () => resolve());
          req.end(JSON.stringify(body));
        }),
    );
    const start = performance.now();
    let s = await server.stats();
    while (s.calls > 0 && performance.now() - start < 5_000) s = await server.stats();
    report('L7 SSE abort', s.calls === 0 && server.child.exitCode === null, {
      streams: n,
      inFlightAfter: s.calls,
      settleMs: Math.round(performance.now() - start),
    });
    await stop(server);
  },

  async L8() {
    const server = await startServer();
    const answers = await pool(50, 50, () => post(server.port, call('hang', {})));
    const ok = answers.filter((a) => parse(a.body).result?.isError === true && Math.abs(a.ms - 2_000) < 300).length;
    const s = await server.stats();
    report('L8 server-side deadline', ok === 50 && s.calls === 0, {
      onTime: ok,
      of: 50,
      minMs: Math.round(Math.min(...answers.map((a) => a.ms))),
      maxMs: Math.round(Math.max(...answers.map((a) => a.ms))),
      inFlight: s.calls,
    });
    await stop(server);
  },

  async L9() {
    const server = await startServer();
    const n = scale(5_000);
    const answers = await pool(n, 16, () => post(server.port, call('boom', {})));
    const good = answers.filter((a) => a.status === 200 && parse(a.body).result?.isError === true).length;
    const leaks = answers.filter((a) => a.body.includes('/srv/app')).length;
    report('L9 handler throws under load', good === n && leaks === 0 && server.child.exitCode === null, {
      isError: good,
      of: n,
      pathLeaks: leaks,
      p99: percentile(
        answers.map((a) => a.ms),
        99,
      ),
    });
    await stop(server);
  },

  async L10() {
    const server = await startServer();
    const big = [];
    for (let i = 0; i < 10; i++) big.push(await post(server.port, call('big', { mb: 16 })));
    const capped = big.every((a) => parse(a.body).error?.code === -32603 && a.body.length < 1_000 && a.ms < 1_000);
    const before = await server.stats();
    const paused = await new Promise<{ bytes: number; rssDuring: number }>((resolve) => {
      const body = call('big', { mb: 0.9 });
      const req = httpRequest(
        { host: '127.0.0.1', port: server.port, path: '/mcp', method: 'POST', headers: mcpHeaders(body) },
        (res) => {
          res.pause();
          void sleep(5_000).then(async () => {
            const during = await server.stats();
            let bytes = 0;
            res.on('data', (c: Buffer) => (bytes += c.length));
            res.on('end', () => resolve({ bytes, rssDuring: during.rss }));
            res.resume();
          });
        },
      );
      req.end(JSON.stringify(body));
    });
    const growth = paused.rssDuring - before.rss;
    report('L10 huge output', capped && paused.bytes > 900_000 && growth < 3 * 0.9 * 1024 * 1024, {
      overCapAnswersMs: big.map((a) => Math.round(a.ms)),
      pausedReaderBytes: paused.bytes,
      rssGrowthWhilePaused: mb(growth),
    });
    await stop(server);
  },

  async L11() {
    const server = await startServer();
    const baseline = await echoCannon(server.port, { connections: 2, duration: scale(5) });
    const during = echoCannon(server.port, { connections: 2, duration: scale(5) });
    const regex = await pool(20, 4, () => post(server.port, call('regex', { q: `${'a'.repeat(28)}!` })));
    const load = await during;
    const slowest = Math.max(...regex.map((a) => a.ms));
    report('L11 ReDoS', slowest < 100 && load.latency.p99 < 2 * Math.max(baseline.latency.p99, 1), {
      slowestRegexMs: Math.round(slowest),
      p99Baseline: baseline.latency.p99,
      p99During: load.latency.p99,
    });
    await stop(server);
  },

  async L12() {
    const server = await startServer();
    const before = await server.stats();
    const sockets: Array<{ socket: Socket; opened: number; closedAfter?: number; got408: boolean }> = [];
    const n = scale(300);
    for (let i = 0; i < 2 * n; i++) {
      const socket = connect(server.port, '127.0.0.1');
      const entry = { socket, opened: performance.now(), closedAfter: undefined as number | undefined, got408: false };
      socket.on('data', (c) => (entry.got408 ||= c.toString('latin1').startsWith('HTTP/1.1 408')));
      socket.on('close', () => (entry.closedAfter = performance.now() - entry.opened));
      socket.on('error', () => undefined);
      socket.write(
        i < n
          ? 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '
          : 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"js',
      );
      sockets.push(entry);
    }
    const normal = await pool(100, 4, (i) => post(server.port, call('echo', { text: `n${i}` })));
    const start = performance.now();
    while (sockets.some((s) => s.closedAfter === undefined) && performance.now() - start < 10_000) await sleep(100);
    await sleep(1_000);
    const after = await server.stats();
    const slowest = Math.max(...sockets.map((s) => s.closedAfter ?? Infinity));
    report(
      'L12 slowloris',
      percentile(
        normal.map((a) => a.ms),
        99,
      ) < 500 &&
        slowest < 5_500 &&
        after.activeResources <= before.activeResources + 2,
      {
        normalP99: Math.round(
          percentile(
            normal.map((a) => a.ms),
            99,
          ),
        ),
        slowSocketsClosed: sockets.filter((s) => s.closedAfter !== undefined).length,
        of: sockets.length,
        got408: sockets.filter((s) => s.got408).length,
        slowestCloseMs: Math.round(slowest),
        activeResourcesDelta: after.activeResources - before.activeResources,
      },
    );
    await stop(server);
  },

  async L13() {
    const server = await startServer();
    const before = await server.stats();
    const h = mcpHeaders(call('echo', { text: 'x' }));
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    const n = scale(500);
    const m = scale(100);
    const answers = await pool(n + m, 16, (i) =>
      i < n ? post(server.port, big, h) : post(server.port, bomb, { ...h, 'content-encoding': 'gzip' }),
    );
    const after = await server.stats();
    const refused = answers.filter(
      (a) => a.status === 413 || (a.status === 0 && (a.error === 'ECONNRESET' || a.error === 'EPIPE')),
    ).length;
    report(
      'L13 oversize storm',
      refused === n + m && after.dispatched === before.dispatched && after.rss - before.rss < 50 * 1024 * 1024,
      {
        refused,
        of: n + m,
        status413: answers.filter((a) => a.status === 413).length,
        dispatched: after.dispatched - before.dispatched,
        rssGrowth: mb(after.rss - before.rss),
      },
    );
    await stop(server);
  },

  async L14() {
    const server = await startServer();
    const open: Array<{ text: string; req: ReturnType<typeof httpRequest> }> = [];
    for (let i = 0; i < 32; i++) {
      const body = mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: i });
      const entry = {
        text: '',
        req: httpRequest(
          { host: '127.0.0.1', port: server.port, path: '/mcp', method: 'POST', headers: mcpHeaders(body) },
          (res) => res.on('data', (c: Buffer) => (entry.text += c.toString())),
        ),
      };
      entry.req.on('error', () => undefined);
      entry.req.end(JSON.stringify(body));
      open.push(entry);
    }
    while ((await server.stats()).subscriptions < 32) await sleep(50);
    const extra = await post(server.port, mcpMessage('subscriptions/listen', { notifications: {} }, { id: 33 }));
    await sleep(3_000);
    const keepAlives = open.map((o) => (o.text.match(/^: keep-alive$/gm) ?? []).length);
    open[0].req.destroy();
    while ((await server.stats()).subscriptions > 31) await sleep(50);
    const freed = await new Promise<boolean>((resolve) => {
      const body = mcpMessage('subscriptions/listen', { notifications: {} }, { id: 34 });
      const req = httpRequest(
        { host: '127.0.0.1', port: server.port, path: '/mcp', method: 'POST', headers: mcpHeaders(body) },
        (res) =>
          res.once('data', (c: Buffer) => {
            resolve(c.toString().includes('acknowledged'));
            req.destroy();
          }),
      );
      req.end(JSON.stringify(body));
    });
    open.forEach((o) => o.req.destroy());
    report(
      'L14 listen cap and keep-alive',
      parse(extra.body).error?.message === 'Subscription limit reached' && keepAlives.every((k) => k >= 2) && freed,
      {
        extraAnswer: parse(extra.body).error,
        minKeepAlives: Math.min(...keepAlives),
        slotFreed: freed,
      },
    );
    await stop(server);
  },

  async L15() {
    const server = await startServer();
    const listens = Array.from({ length: 8 }, (_, i) =>
      post(
        server.port,
        mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: `L${i}` }),
      ),
    );
    const load = echoCannon(server.port, { connections: 16, duration: 15 });
    await sleep(4_500);
    // Started just before SIGTERM: short calls (0.4 s) must complete, hanging ones end by the 2 s call deadline
    // or the 3 s drain deadline, whichever comes first.
    const short = Array.from({ length: 10 }, (_, i) =>
      post(server.port, call('slowProgress', { n: 20 }, `P${i}`, { progressToken: i })),
    );
    const hangs = Array.from({ length: 5 }, (_, i) => post(server.port, call('hang', {}, `H${i}`)));
    await sleep(500);
    const sigterm = performance.now();
    server.child.kill('SIGTERM');
    const code = await server.exited;
    const exitMs = performance.now() - sigterm;
    const after = await post(server.port, call('echo', { text: 'late' }));
    const r = await load;
    const statuses = Object.keys(r.statusCodeStats ?? {});
    const listensClosed = (await Promise.all(listens)).every((a) => /"result":\{"_meta"/.test(a.body));
    const shortDone = (await Promise.all(short)).every((a, i) => a.body.includes(`"text":"done P${i}"`));
    const longEnded = (await Promise.all(hangs)).every((a) => /Request timed out|Server is shutting down/.test(a.body));
    report(
      'L15 graceful shutdown under load',
      code === 0 &&
        exitMs < 4_000 &&
        listensClosed &&
        shortDone &&
        longEnded &&
        statuses.every((st) => st === '200' || st === '503') &&
        after.status !== 500,
      {
        exitCode: code,
        exitMs: Math.round(exitMs),
        listensGotClosingResult: listensClosed,
        shortCallsCompleted: shortDone,
        longCallsEnded: longEnded,
        loadRequests: r.requests.total,
        loadStatuses: r.statusCodeStats,
        loadErrors: r.errors,
        afterExit: after.error ?? after.status,
      },
    );
  },

  async L16() {
    console.log(
      "L16 conformance: the referee needs Node >= 22 (shared docs, toolchain.md); run it with the project's conformance",
    );
    console.log(
      '  tooling: conformance server --url http://127.0.0.1:PORT/mcp --requirements 2026-07-28 (package @modelcontextprotocol/conformance@0.2.0-alpha.12)',
    );
  },
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const names = wanted.length === 0 || wanted.includes('all') ? Object.keys(plan).filter((n) => n !== 'L4') : wanted;
for (const name of names) {
  if (!plan[name]) throw new Error(`unknown test ${name}; choose from ${Object.keys(plan).join(' ')}`);
  try {
    await plan[name]();
  } catch (error) {
    report(`${name} crashed`, false, { error: String(error) });
  } finally {
    running.forEach((child) => child.kill('SIGKILL'));
  }
}
agent.destroy();
console.log(
  `\n${results.filter((r) => r.pass).length}/${results.length} passed${QUICK ? ' (quick run: targets are calibrated for full runs)' : ''}`,
);
process.exit(results.every((r) => r.pass) ? 0 : 1);
