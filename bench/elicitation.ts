import { randomBytes } from 'node:crypto';
import { mcpHeaders, mcpMessage, sseMessages } from '../src/testing/index.js';
import { ASK_NAME_TOOL, LEGACY_PROTOCOL_VERSION } from './fixtures.js';
import { startServerChild, stopServerChild } from './server-process.js';

/**
 * Input rounds across instances: a call whose answer needs something from the client, with the client's part
 * landing on another instance than the call, against the same round on one instance without Redis. Two rounds,
 * one per era:
 *
 * - 2025-era elicitation: the call waits on A with its SSE stream open; the client POSTs its reply to B, whose
 *   reply router hands it to A over Redis; A answers on the stream.
 * - 2026-07-28 input_required: the call on A answers `input_required` with a request state; the retry, with the
 *   state and the answer, goes to B, which consumes the state in the Redis request-state store (the tool is
 *   `singleUseState`) and runs the tool.
 *
 * Each instance is a `server-child` process (Nest + Fastify); the fleet's two share Redis (BENCH_REDIS_URL or the
 * machine's), a key prefix and the request-state secret. Clients run in this process, each one round trip after
 * the other: 16 at once (throughput), then one alone (the latency the extra hop adds, without queueing). Halves
 * of the one-instance and the fleet runs alternate, so a busy neighbour skews both alike.
 */
export interface InputRoundFigures {
  /** Completed round trips per second, over every client. */
  rps: number;
  /** Latency of one round trip (first POST to final answer), in milliseconds. */
  p50: number;
  p99: number;
  trips: number;
}

/** One round on one set-up: under load (`CLIENTS` at once), and with one client alone (the latency of the hop). */
export interface InputRoundRun {
  loaded: InputRoundFigures;
  alone: InputRoundFigures;
}

export interface InputRoundRow {
  label: string;
  one: InputRoundRun;
  across: InputRoundRun;
}

const CLIENTS = 16;
const ANSWER = { action: 'accept', content: { name: 'Ada' } };
const GREETING = 'Hello, Ada!';

type RoundTrip = (callUrl: string, answerUrl: string) => Promise<void>;

let nextId = 1;

/** The JSON-RPC messages of an SSE body as they arrive. */
async function* streamedMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      yield* sseMessages(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
    }
  }
}

const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': LEGACY_PROTOCOL_VERSION,
};

/** A 2025-era client: the call on `callUrl`, its elicitation reply POSTed to `answerUrl`. */
const legacyElicitation: RoundTrip = async (callUrl, answerUrl) => {
  const id = nextId++;
  const call = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: ASK_NAME_TOOL.name, arguments: {} } };
  const response = await fetch(callUrl, { method: 'POST', headers: LEGACY_HEADERS, body: JSON.stringify(call) });
  let answered = false;
  for await (const message of streamedMessages(response.body!)) {
    if (message.method === 'elicitation/create') {
      const reply = await fetch(answerUrl, {
        method: 'POST',
        headers: LEGACY_HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: message.id, result: ANSWER }),
      });
      await reply.arrayBuffer();
      if (reply.status !== 202) throw new Error(`the reply was answered ${reply.status}`);
    } else if (message.id === id) {
      const text = (message.result as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text;
      if (text !== GREETING) throw new Error(`unexpected answer ${JSON.stringify(message)}`);
      answered = true;
    }
  }
  if (!answered) throw new Error('the call stream ended without its answer');
};

/** POSTs a 2026-07-28 request and returns its result, whether it came as JSON or as an SSE stream. */
async function resultOf(url: string, body: ReturnType<typeof mcpMessage>): Promise<Record<string, any>> {
  const response = await fetch(url, { method: 'POST', headers: mcpHeaders(body), body: JSON.stringify(body) });
  const text = await response.text();
  const messages = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? sseMessages(text)
    : [JSON.parse(text)];
  const answer = messages.find((message) => message.id === body.id) as { result?: Record<string, any> } | undefined;
  if (!answer?.result) throw new Error(`HTTP ${response.status} answered ${text.slice(0, 300)}`);
  return answer.result;
}

/** A 2026-07-28 client: the call on `callUrl` asks for input; the retry with the answer goes to `answerUrl`. */
const inputRequired: RoundTrip = async (callUrl, answerUrl) => {
  const name = `${ASK_NAME_TOOL.name}_once`;
  const options = { id: nextId++, clientCapabilities: { elicitation: {} } };
  const first = await resultOf(callUrl, mcpMessage('tools/call', { name, arguments: {} }, options));
  if (first.resultType !== 'input_required') throw new Error(`expected input_required, got ${JSON.stringify(first)}`);
  const retry = mcpMessage(
    'tools/call',
    { name, arguments: {}, inputResponses: { name: ANSWER }, requestState: first.requestState },
    { ...options, id: nextId++ },
  );
  const done = await resultOf(answerUrl, retry);
  if (done.content?.[0]?.text !== GREETING) throw new Error(`unexpected answer ${JSON.stringify(done)}`);
};

/** `clients` clients, each running `trip` back to back for `seconds`; the latency of every completed trip. */
async function drive(
  trip: () => Promise<void>,
  seconds: number,
  clients: number,
): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        await trip();
        latencies.push(performance.now() - sent);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

type Drive = Awaited<ReturnType<typeof drive>>;

function figures(runs: Drive[]): InputRoundFigures {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((total, run) => total + run.seconds, 0);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), trips: latencies.length };
}

/** Both rounds, each on one instance without Redis and across two instances sharing Redis. */
export async function measureInputRounds(smoke: boolean): Promise<InputRoundRow[]> {
  const seconds = smoke ? 0.5 : Number(process.env.BENCH_SECONDS ?? 5);
  const fleet = {
    BENCH_REDIS_PREFIX: `nestjs-mcp-bench:fleet:${process.pid}:`,
    BENCH_STATE_SECRET: randomBytes(32).toString('hex'),
  };
  const servers = await Promise.all([
    startServerChild('mcp-fastify', ['5', 'elicit']),
    startServerChild('mcp-fastify-redis', ['5', 'elicit'], fleet),
    startServerChild('mcp-fastify-redis', ['5', 'elicit'], fleet),
  ]);
  const [one, a, b] = servers.map(({ port }) => `http://127.0.0.1:${port}/mcp`);
  try {
    const rows: InputRoundRow[] = [];
    for (const [label, trip] of [
      ['2025-era elicitation (call stream open on A, reply POSTed to B)', legacyElicitation],
      ['2026-07-28 input_required (call on A, retry with requestState to B, singleUseState)', inputRequired],
    ] as const) {
      const setUps = [() => trip(one, one), () => trip(a, b)];
      if (!smoke) for (const setUp of setUps) await drive(setUp, 1, CLIENTS);
      const runs = setUps.map(() => ({ loaded: new Array<Drive>(), alone: new Array<Drive>() }));
      for (let half = 0; half < 2; half++) {
        for (const [i, setUp] of setUps.entries()) {
          runs[i].loaded.push(await drive(setUp, seconds / 2, CLIENTS));
          runs[i].alone.push(await drive(setUp, seconds / 4, 1));
        }
      }
      const [single, across] = runs.map((run) => ({ loaded: figures(run.loaded), alone: figures(run.alone) }));
      rows.push({ label, one: single, across });
    }
    return rows;
  } finally {
    await Promise.all(servers.map(({ child }) => stopServerChild(child)));
  }
}
