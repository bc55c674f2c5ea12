import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** What came back from one POST, read to the end. */
export interface HttpReply {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  text: string;
}

/**
 * POSTs `body` with exactly `headers` through `node:http` (which adds only Content-Length, Connection and, when none
 * is given, Host): unlike `fetch`, it sends the Host or Origin a test chose and no headers of its own, so the
 * server's header checks can be tested.
 */
export function httpPost(url: string, headers: Record<string, string>, body: string): Promise<HttpReply> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // setHost: false, or Node replaces an empty Host the test chose with its own.
    const req = send(url, { method: 'POST', headers, setHost: !('host' in headers) }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: Object.fromEntries(
            Object.entries(res.headers).flatMap(([name, value]) =>
              value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
            ),
          ),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}
