import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Slotted } from '../server/util/slot-set.js';
import { SweptSet } from '../server/util/swept-set.js';

export type BodyResult = { ok: true; body: Buffer } | { ok: false; status: 413 | 415 | 408 | 400; message: string };

/** A body being read, as its deadline's sweep sees it. */
interface BodyDeadline extends Slotted {
  readonly at: number;
  readonly expire: () => void;
}

/**
 * The deadlines of the bodies being read, one swept set per deadline length (a driver has one), swept every tenth
 * of it (10 ms to 1 s): a timer per body cost a timer's creation and removal on every request. A stalled body
 * gets its 408 at most a tenth of the deadline (at most a second) late. The sweep never holds the process: the
 * socket does.
 */
const deadlines = new Map<number, SweptSet<BodyDeadline>>();

function deadlinesOf(deadlineMs: number): SweptSet<BodyDeadline> {
  let set = deadlines.get(deadlineMs);
  if (!set) {
    set = new SweptSet<BodyDeadline>(Math.min(Math.max(deadlineMs / 10, 10), 1_000), expireOverdue, false);
    deadlines.set(deadlineMs, set);
  }
  return set;
}

function expireOverdue(pending: readonly BodyDeadline[]): void {
  const now = Date.now();
  for (const deadline of pending) if (deadline.at <= now) deadline.expire();
}

/**
 * Reads a request body into memory, never past `limit` bytes and never for much longer than `deadlineMs` (0: no
 * deadline; see `deadlines` for how late it may be), and hands the outcome to `done`, once, from the stream's own
 * event: no promise stands between a body's end and the request it completes. A compressed body is counted after
 * inflation, so a small gzip bomb cannot expand past the limit, and a chunked body is cut as soon as it crosses
 * it. The deadline is what keeps a stalled upload from holding its socket until Node's own server-wide timeouts
 * (minutes by default), without changing those for the app.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  deadlineMs: number,
  done: (result: BodyResult) => void,
): void {
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  let source: Readable = req;
  switch (encoding) {
    case 'identity':
    case '':
      break;
    case 'gzip':
    case 'x-gzip':
      source = req.pipe(createGunzip());
      break;
    case 'deflate':
      source = req.pipe(createInflate());
      break;
    case 'br':
      source = req.pipe(createBrotliDecompress());
      break;
    default:
      return done({ ok: false, status: 415, message: `Unsupported Content-Encoding "${encoding}"` });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  let deadline: BodyDeadline | undefined;
  const finish = (result: BodyResult) => {
    if (settled) return;
    settled = true;
    if (deadline) deadlinesOf(deadlineMs).delete(deadline);
    // Once the body ended no data follows; a refused one stops being collected. Not removed on success:
    // removing a Readable's listeners schedules work of its own, measurable per request.
    if (!result.ok) source.removeAllListeners('data');
    if (source !== req) source.destroy();
    done(result);
  };
  source.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      finish({ ok: false, status: 413, message: `Request body exceeds the limit of ${limit} bytes` });
      return;
    }
    chunks.push(chunk);
  });
  // A small body arrives in one chunk: kept as it is rather than copied into a buffer of its own.
  source.on('end', () => finish({ ok: true, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) }));
  source.on('error', () => finish({ ok: false, status: 400, message: 'Request body could not be read or decoded' }));
  if (source !== req)
    req.on('error', () => finish({ ok: false, status: 400, message: 'Request body could not be read' }));
  req.on('aborted', () => finish({ ok: false, status: 400, message: 'Request aborted' }));
  if (deadlineMs > 0) {
    deadline = {
      slot: -1,
      at: Date.now() + deadlineMs,
      expire: () => finish({ ok: false, status: 408, message: `Request body did not arrive within ${deadlineMs} ms` }),
    };
    deadlinesOf(deadlineMs).add(deadline);
  }
}

/**
 * Reads and drops what is left of a refused body, up to `bound` bytes as sent (still compressed) and for at most
 * `deadlineMs`, so a client still writing it gets to read the refusal instead of a reset connection. Resolves
 * true when the body ended within both, false (the caller closes the connection) otherwise. Nothing is kept.
 */
export function discardBody(req: IncomingMessage, bound: number, deadlineMs: number): Promise<boolean> {
  if (req.complete || req.destroyed) return Promise.resolve(req.complete);
  return new Promise((resolve) => {
    let seen = 0;
    const done = (ended: boolean) => {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      resolve(ended);
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > bound) done(false);
    };
    const onEnd = () => done(true);
    const onAborted = () => done(false);
    const timer = setTimeout(() => done(false), deadlineMs);
    timer.unref();
    // A decoder the body was piped into has been destroyed: the request itself is read from here on.
    req.unpipe();
    req.on('data', count);
    req.once('end', onEnd);
    req.once('aborted', onAborted);
    req.resume();
  });
}
