/** What the splitter found in the bytes it was given: a whole line, or a line longer than the limit. */
export type SplitLine = { kind: 'line'; text: string } | { kind: 'oversize' };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Cuts a byte stream into newline-delimited messages under a size limit. It never holds more than `maxBytes`
 * of one line: past that, the line is reported once as oversize and its remaining bytes are dropped up to the
 * next newline, so a peer that never sends one cannot grow the buffer. Lines are decoded only once whole (a
 * chunk may end inside a multi-byte character); a trailing CR is dropped and blank lines are skipped.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;

  constructor(private readonly maxBytes: number) {}

  /** The lines completed by `chunk`, in order. */
  push(chunk: Buffer): SplitLine[] {
    const out: SplitLine[] = [];
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      const stop = end === -1 ? chunk.length : end;
      this.take(chunk, start, stop, out);
      if (end === -1) break;
      this.endLine(out);
      start = end + 1;
    }
    return out;
  }

  /** At end of input: the last line, when it had no newline. */
  end(): SplitLine[] {
    const out: SplitLine[] = [];
    this.endLine(out);
    return out;
  }

  private take(chunk: Buffer, start: number, stop: number, out: SplitLine[]): void {
    if (this.discarding || stop === start) return;
    if (this.pendingBytes + (stop - start) > this.maxBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      out.push({ kind: 'oversize' });
      return;
    }
    // A tail kept for the next chunk is copied, so a few bytes do not hold a whole chunk's memory.
    const piece = chunk.subarray(start, stop);
    this.pending.push(stop === chunk.length && start > 0 ? Buffer.from(piece) : piece);
    this.pendingBytes += stop - start;
  }

  private endLine(out: SplitLine[]): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    if (this.pendingBytes === 0) return;
    let bytes = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, -1);
    const text = bytes.toString('utf8');
    if (text.trim() !== '') out.push({ kind: 'line', text });
  }
}
