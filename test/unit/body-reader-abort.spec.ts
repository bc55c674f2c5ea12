import { createServer, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { readBody, type BodyResult } from '../../src/http/body-reader.js';

async function abortMidBody(deadlineMs: number, destroyWithoutError = false): Promise<BodyResult> {
  let resolve!: (r: BodyResult) => void;
  const result = new Promise<BodyResult>((r) => (resolve = r));
  const server = createServer((req: IncomingMessage) => {
    readBody(req, 1024, deadlineMs, resolve);
    if (destroyWithoutError) setTimeout(() => req.destroy(), 50);
  });
  await new Promise<void>((r) => server.listen(0, r));
  const port = (server.address() as { port: number }).port;
  const socket = connect(port, '127.0.0.1', () => {
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a"');
    if (!destroyWithoutError) setTimeout(() => socket.destroy(), 50);
  });
  socket.on('error', () => {});
  const outcome = await result;
  socket.destroy();
  server.close();
  return outcome;
}

describe('readBody: a body whose request ends early settles its read', () => {
  it('with a deadline', async () => expect(await abortMidBody(30_000)).toMatchObject({ status: 400 }));
  it('without a deadline', async () => expect(await abortMidBody(0)).toMatchObject({ status: 400 }));
  it('destroyed without an error, without a deadline', async () =>
    expect(await abortMidBody(0, true)).toMatchObject({ status: 400 }));
  it('destroyed without an error, with a deadline', async () =>
    expect(await abortMidBody(100, true)).toMatchObject({ status: 408 }));
});
