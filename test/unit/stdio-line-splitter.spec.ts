import { LineSplitter, type SplitLine } from '../../src/stdio/line-splitter.js';

const texts = (lines: SplitLine[]) => lines.map((line) => (line.kind === 'line' ? line.text : '<oversize>'));

describe('LineSplitter', () => {
  it('cuts lines across chunk boundaries, drops a trailing CR and skips blank lines', () => {
    const splitter = new LineSplitter(100);
    expect(texts(splitter.push(Buffer.from('{"a":1}\n{"b"')))).toEqual(['{"a":1}']);
    expect(texts(splitter.push(Buffer.from(':2}\r\n\n  \n{"c":3}')))).toEqual(['{"b":2}']);
    expect(texts(splitter.end())).toEqual(['{"c":3}']);
  });

  it('decodes a multi-byte character split between chunks only once the line is whole', () => {
    const bytes = Buffer.from('"héllo"\n');
    const splitter = new LineSplitter(100);
    expect(splitter.push(bytes.subarray(0, 3))).toEqual([]);
    expect(texts(splitter.push(bytes.subarray(3)))).toEqual(['"héllo"']);
  });

  it('reports a line over the limit once, drops the rest of it, and goes on with the next line', () => {
    const splitter = new LineSplitter(10);
    expect(texts(splitter.push(Buffer.from('0123456')))).toEqual([]);
    expect(texts(splitter.push(Buffer.from('789abc')))).toEqual(['<oversize>']);
    expect(texts(splitter.push(Buffer.from('x'.repeat(1000))))).toEqual([]);
    expect(texts(splitter.push(Buffer.from('yyy\n{"ok":1}\n')))).toEqual(['{"ok":1}']);
  });

  it('never holds more than the limit of a line that has no newline', () => {
    const splitter = new LineSplitter(1024);
    for (let i = 0; i < 1000; i++) splitter.push(Buffer.alloc(4096, 0x61));
    const held = (splitter as unknown as { pendingBytes: number }).pendingBytes;
    expect(held).toBeLessThanOrEqual(1024);
    expect(texts(splitter.push(Buffer.from('\n"after"\n')))).toEqual(['"after"']);
  });

  it('copies a kept tail, so a few bytes do not pin the chunk they came in', () => {
    const splitter = new LineSplitter(100);
    const text = '{"a":1}\n{"b"';
    const chunk = Buffer.alloc(text.length); // not from the shared pool, so its memory is its own
    chunk.write(text);
    splitter.push(chunk);
    const [piece] = (splitter as unknown as { pending: Buffer[] }).pending;
    expect(piece.buffer).not.toBe(chunk.buffer);
  });
});
