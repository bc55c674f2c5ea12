import { createServer, type Server } from 'node:http';
import { createHandDispatcher } from './hand-dispatch.js';

/** Node itself: read the body, parse it, dispatch by hand. The ceiling every other row is measured against. */
export function startNodeHttp(toolCount: number): Server {
  const dispatch = createHandDispatcher(toolCount);
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => dispatch(JSON.parse(Buffer.concat(chunks).toString('utf8')), res));
  });
}
