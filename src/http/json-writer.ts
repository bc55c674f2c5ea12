import type { ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { byteLength, serializeWithinLimit } from '../server/response-serializer.js';
import type { HttpRejection } from './mcp-http-options.js';

/**
 * Writes JSON-RPC responses as JSON bodies under the response cap (a bigger result becomes -32603), and the
 * refusals decided before a request reaches the kernel. Nothing is written once the response has begun.
 */
export class JsonWriter {
  constructor(private readonly maxResponseBytes: number) {}

  write(res: ServerResponse, status: number, body: JsonRpcResponse, headers?: Record<string, string>): void {
    if (res.headersSent || res.writableEnded) return;
    const text = serializeWithinLimit(body, this.maxResponseBytes);
    const chunked = typeof text !== 'string';
    // A literal per response rather than spreads or a helper's call: this runs for every answer.
    const head: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': chunked ? byteLength(text) : Buffer.byteLength(text),
    };
    res.writeHead(status, headers ? Object.assign(head, headers) : head);
    if (!chunked) {
      res.end(text);
      return;
    }
    // Corked, the chunks leave in one write and the pre-serialized page is never copied.
    res.cork();
    for (const chunk of text) res.write(chunk);
    res.end();
    res.uncork();
  }

  /** A response as one string, under the same cap: the final message of an SSE stream. */
  text(body: JsonRpcResponse): string {
    const text = serializeWithinLimit(body, this.maxResponseBytes);
    return typeof text === 'string' ? text : Buffer.concat(text).toString('utf8');
  }

  /** A refusal: its status, with a JSON-RPC error whose id is null (nothing of the body was trusted). */
  reject(res: ServerResponse, rejection: HttpRejection): void {
    const code = rejection.code ?? (rejection.status === 400 ? ErrorCode.ParseError : ErrorCode.InvalidRequest);
    this.write(res, rejection.status, errorResponse(null, code, rejection.message), rejection.headers);
  }
}
