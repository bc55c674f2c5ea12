import type { ChildProcess } from 'node:child_process';
import { Agent, request, type ClientRequest } from 'node:http';
import { exchange, LEGACY_PROTOCOL_VERSION, type ChildUsage } from '../fixtures.js';
import { startServerChild, stopServerChild } from '../server-process.js';

/**
 * What 2025-era sessions hold over time (Nest + Fastify, `legacy.mode: 'stateful'`, the in-memory store): the
 * live heap after a full collection, and RSS, with no session, with `sessions` sessions open (the default
 * `maxTotal`), with `streams` of them also holding their GET stream open, and after the streams are closed and
 * every session ended with DELETE, which must give back what they held.
 */
export interface SessionMemory {
  sessions: number;
  streams: number;
  /** After a full GC: at start, with the sessions, with the streams too, and after releasing them all. */
  heap: [number, number, number, number];
  rss: [number, number, number, number];
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': LEGACY_PROTOCOL_VERSION,
};
const CONCURRENCY = 32;

export async function measureSessionMemory(smoke: boolean): Promise<SessionMemory> {
  const sessions = smoke ? 1_000 : 10_000;
  const streams = smoke ? 100 : 1_000;
  const { child, port } = await startServerChild('mcp-fastify', ['5', 'stateful']);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const open: ClientRequest[] = [];
  const openSessions = async (count: number) => {
    const ids: string[] = [];
    await inParallel(count, async () => ids.push(await initialize(port, agent)));
    return ids;
  };
  const openStreams = async (ids: string[]) => {
    for (const id of ids) open.push(await openStream(port, id));
  };
  const release = async (ids: string[]) => {
    for (const stream of open.splice(0)) stream.destroy();
    let next = 0;
    await inParallel(ids.length, () => end(port, agent, ids[next++]));
  };
  try {
    // One small cycle first, so the start figure already holds the code and caches that any first session
    // compiles or fills: what stays after the release is then what the sessions failed to give back.
    const first = await openSessions(100);
    await openStreams(first.slice(0, 10));
    await release(first);
    const start = await usage(child);
    const ids = await openSessions(sessions);
    const withSessions = await usage(child);
    await openStreams(ids.slice(0, streams));
    const withStreams = await usage(child);
    await release(ids);
    const released = await usage(child);
    const all = [start, withSessions, withStreams, released];
    return {
      sessions,
      streams,
      heap: all.map((u) => u.heapAfterGc) as SessionMemory['heap'],
      rss: all.map((u) => u.rss) as SessionMemory['rss'],
    };
  } finally {
    for (const stream of open) stream.destroy();
    agent.destroy();
    await stopServerChild(child);
  }
}

async function inParallel(count: number, work: () => Promise<unknown>): Promise<void> {
  let started = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (started < count) {
        started++;
        await work();
      }
    }),
  );
}

/** The live heap is read after a full GC the child runs; a stream that closes is noticed a moment later. */
async function usage(child: ChildProcess): Promise<ChildUsage> {
  await new Promise((resolve) => setTimeout(resolve, 200));
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as ChildUsage));
    child.send('usage');
  });
}

async function initialize(port: number, agent: Agent): Promise<string> {
  const params = {
    protocolVersion: LEGACY_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params });
  const { status, sessionId, text } = await exchange(port, agent, 'POST', HEADERS, body);
  if (status !== 200 || !sessionId) throw new Error(`initialize: HTTP ${status} ${text.slice(0, 200)}`);
  return sessionId;
}

async function end(port: number, agent: Agent, id: string): Promise<void> {
  const { 'content-type': _bodyless, ...headers } = HEADERS;
  const { status, text } = await exchange(port, agent, 'DELETE', { ...headers, 'mcp-session-id': id });
  if (status !== 200) throw new Error(`DELETE: HTTP ${status} ${text.slice(0, 200)}`);
}

/** A GET stream of the session, held open (on a socket of its own) once its headers came back 200. */
function openStream(port: number, id: string): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'GET',
        agent: false,
        headers: {
          accept: 'text/event-stream',
          'mcp-protocol-version': LEGACY_PROTOCOL_VERSION,
          'mcp-session-id': id,
        },
      },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`GET stream: HTTP ${res.statusCode}`));
        else resolve(req);
        res.resume();
      },
    );
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    req.end();
  });
}

export function printSessionMemory(m: SessionMemory, fmt: (n: number, digits?: number) => string): void {
  const mb = (bytes: number) => fmt(bytes / 2 ** 20, 1);
  console.log(
    `\nStateful sessions (2025-era, Nest + Fastify, in-memory store): live heap after a full GC (RSS), MB:\n`,
  );
  console.log('| stage | heap MB | RSS MB | per item |');
  console.log('|---|---:|---:|---|');
  console.log(`| no session | ${mb(m.heap[0])} | ${mb(m.rss[0])} | |`);
  console.log(
    `| ${fmt(m.sessions)} sessions | ${mb(m.heap[1])} | ${mb(m.rss[1])} | ${fmt((m.heap[1] - m.heap[0]) / m.sessions / 1024, 2)} KB of heap per session |`,
  );
  console.log(
    `| and ${fmt(m.streams)} open GET streams | ${mb(m.heap[2])} | ${mb(m.rss[2])} | ${fmt((m.heap[2] - m.heap[1]) / m.streams / 1024, 2)} KB of heap per stream |`,
  );
  console.log(
    `| streams closed, sessions ended | ${mb(m.heap[3])} | ${mb(m.rss[3])} | ${fmt((m.heap[3] - m.heap[0]) / 1024)} KB of heap more than at start |`,
  );
}
