import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { HttpRejection } from './mcp-http-options.js';

/** Why a body was refused. */
export interface BodyRefusal {
  status: 413 | 415 | 408 | 400;
  message: string;
}
/** The body read, or why it was refused. */
export type BodyResult = Buffer | BodyRefusal;

/** The answer to a refused body. */
export function rejectionOf(refusal: BodyRefusal): HttpRejection {
  // A timed-out body may never end: with `Connection: close`, Node destroys the socket once the 408 is out.
  const close = refusal.status === 413 || refusal.status === 408;
  return { status: refusal.status, message: refusal.message, headers: close ? { connection: 'close' } : undefined };
}

/**
 * The reads under way, by the stream that feeds each (the request, or the decoder it is piped into), rather than
 * a property on the request: one added to a framework's request (Express's carries dozens) copies its property
 * store.
 */
const reads = new Map<Readable, BodyRead>();

/**
 * The deadlines of the bodies being read are kept by one interval timer that visits `reads` every tenth of the
 * shortest deadline it serves (10 ms to 1 s): a timer per body cost a timer's creation and removal on every
 * request, and a set of its own, an entry's addition and removal. A stalled body gets its 408 at most a tenth of
 * its deadline (at most a second) late. The timer starts with a read and stops itself on a sweep that finds none;
 * it never holds the process: the socket does.
 */
let sweeper: NodeJS.Timeout | undefined;
/** The shortest deadline the running sweeper serves. */
let sweptDeadlineMs = 0;

function armSweeper(deadlineMs: number): void {
  clearInterval(sweeper);
  sweptDeadlineMs = deadlineMs;
  sweeper = setInterval(sweep, Math.min(Math.max(deadlineMs / 10, 10), 1_000));
  sweeper.unref();
}

function sweep(): void {
  if (reads.size === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
    return;
  }
  const now = Date.now();
  // A decoded body's read is listed twice (the request and its decoder): it settles once.
  for (const read of reads.values()) if (read.at !== 0 && read.at <= now) read.expire();
}

/**
 * One body being read. Its listeners are this module's functions, which find it by the stream that calls them,
 * rather than closures made per request: with many requests in flight, each object a read makes is one more for
 * every scavenge to find alive and copy.
 */
class BodyRead {
  /** When the deadline passes (epoch ms); 0 for none. */
  declare readonly at: number;
  declare private size: number;
  declare private settled: boolean;
  // A small body arrives in one chunk: kept as it is rather than copied into a buffer of its own.
  declare private first: Buffer | undefined;
  declare private chunks: Buffer[] | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly source: Readable,
    private readonly limit: number,
    private readonly deadlineMs: number,
    private readonly done: (result: BodyResult) => void,
  ) {
    this.at = deadlineMs > 0 ? Date.now() + deadlineMs : 0;
    this.size = 0;
    this.settled = false;
    this.first = undefined;
    this.chunks = undefined;
  }

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) return this.finish(413, `Request body exceeds the limit of ${this.limit} bytes`);
    if (this.first === undefined) this.first = chunk;
    else (this.chunks ??= [this.first]).push(chunk);
  }

  ended(): void {
    if (this.settled) return;
    const body = this.chunks ? Buffer.concat(this.chunks, this.size) : (this.first ?? Buffer.alloc(0));
    this.finish(200, '', body);
  }

  expire(): void {
    this.finish(408, `Request body did not arrive within ${this.deadlineMs} ms`);
  }

  /** Hands over the body (`status` 200) or the refusal, once. */
  finish(status: BodyRefusal['status'] | 200, message: string, body?: Buffer): void {
    if (this.settled) return;
    this.settled = true;
    this.first = this.chunks = undefined;
    reads.delete(this.req);
    if (this.source !== this.req) reads.delete(this.source);
    // Once the body ended no data follows; a refused one stops being collected. Not removed on success:
    // removing a Readable's listeners schedules work of its own, measurable per request.
    if (status !== 200) this.source.removeAllListeners('data');
    if (this.source !== this.req) this.source.destroy();
    this.done(status === 200 ? body! : { status, message });
  }
}

// Called on the stream that feeds the read; once it is settled, on nothing.
function onData(this: Readable, chunk: Buffer): void {
  reads.get(this)?.add(chunk);
}
function onEnd(this: Readable): void {
  reads.get(this)?.ended();
}
function onSourceError(this: Readable): void {
  reads.get(this)?.finish(400, 'Request body could not be read or decoded');
}
function onRequestError(this: Readable): void {
  reads.get(this)?.finish(400, 'Request body could not be read');
}
function onAborted(this: Readable): void {
  reads.get(this)?.finish(400, 'Request aborted');
}

/**
 * Reads a request body into memory, never past `limit` bytes and never for much longer than `deadlineMs` (0: no
 * deadline; see `sweeper` for how late it may be), and hands the outcome to `done`, once, from the stream's own
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
  // A request whose client left (or whose body something else consumed) before the read began emits nothing
  // more: listening would hold it, and its entry in `reads`, until the deadline, and with none, for good.
  if (req.destroyed || req.readableEnded) return done({ status: 400, message: 'Request body could not be read' });
  const declared = req.headers['content-encoding'];
  // Most bodies declare no encoding: they are read as they are, without the header's normalisation.
  const source = declared === undefined ? req : decoded(req, declared);
  if (source === undefined) {
    const encoding = String(declared).trim().toLowerCase();
    return done({ status: 415, message: `Unsupported Content-Encoding "${encoding}"` });
  }
  const read = new BodyRead(req, source, limit, deadlineMs, done);
  reads.set(req, read);
  if (source !== req) {
    reads.set(source, read);
    req.on('error', onRequestError);
  }
  source.on('data', onData);
  source.on('end', onEnd);
  source.on('error', onSourceError);
  if (deadlineMs > 0) {
    if (sweeper === undefined || deadlineMs < sweptDeadlineMs) armSweeper(deadlineMs);
  } else {
    // A client that leaves mid-body makes Node emit 'error' after 'aborted', which ends the read; only a request
    // destroyed without an error emits no more than 'aborted', and a read without a deadline would then wait for good.
    req.on('aborted', onAborted);
  }
}

/** The stream a body with this Content-Encoding is read from; undefined for an encoding not supported. */
function decoded(req: IncomingMessage, declared: string | string[]): Readable | undefined {
  switch (String(declared).trim().toLowerCase()) {
    case 'identity':
    case '':
      return req;
    case 'gzip':
    case 'x-gzip':
      return req.pipe(createGunzip());
    case 'deflate':
      return req.pipe(createInflate());
    case 'br':
      return req.pipe(createBrotliDecompress());
    default:
      return undefined;
  }
}

// How much of a refused body is read and dropped before its 413 (a multiple of the limit), and for how long.
const DISCARD_FACTOR = 8;
const DISCARD_DEADLINE_MS = 5_000;

/**
 * After a refusal sent before the body was read: the client may still be writing it, and must get to read the
 * answer, so the rest is read and dropped (to the same bound and deadline as before a 413; nothing is kept),
 * and only a body past either has its connection closed. `limit` is the body limit.
 */
export function dropUnread(req: IncomingMessage, limit: number): void {
  void discardBody(req, limit * DISCARD_FACTOR, DISCARD_DEADLINE_MS).then((ended) => {
    if (!ended) req.socket?.destroy();
  });
}

/**
 * Before a 413: a client writes its whole body before it reads an answer (Node's http, undici and fetch do), so
 * closing the connection under it shows the client a reset, not the error. The rest is read and dropped, to a
 * bound and a deadline (past either, the 413 is sent and the connection closed all the same), unless the
 * declared length is already past the bound. `limit` is the body limit.
 */
export async function discardRest(req: IncomingMessage, limit: number): Promise<void> {
  const bound = limit * DISCARD_FACTOR;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > bound) return;
  await discardBody(req, bound, DISCARD_DEADLINE_MS);
}

/**
 * Reads and drops what is left of a refused body, up to `bound` bytes as sent (still compressed) and for at most
 * `deadlineMs`, so a client still writing it gets to read the refusal instead of a reset connection. Resolves
 * true when the body ended within both, false (the caller closes the connection) otherwise. Nothing is kept.
 */
function discardBody(req: IncomingMessage, bound: number, deadlineMs: number): Promise<boolean> {
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
