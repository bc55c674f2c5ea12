import { ErrorCode } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcResponse, type JsonRpcSuccessResponse } from '../protocol/jsonrpc.js';

// The UTF-8 JSON of values that never change once published (list pages), keyed by the value itself.
const preserialized = new WeakMap<object, Buffer>();
// The results that may hold such a value (a list's page): only these are searched for one, so the result of a
// call, which never holds one, costs a single lookup rather than a walk over its members.
const pageCarriers = new WeakSet<object>();

/**
 * Freezes a value and encodes it as UTF-8 JSON once, so every response that carries it reuses the bytes
 * instead of stringifying and encoding it again: a page of 1,000 tool definitions costs one `JSON.stringify`
 * per registry version, not one per request. Freezing keeps the bytes true to the value.
 */
export function preserialize<T extends object>(value: T): Readonly<T> {
  const frozen = Object.freeze(value);
  preserialized.set(frozen, Buffer.from(JSON.stringify(frozen), 'utf8'));
  return frozen;
}

/** Marks a result that may hold a pre-serialized member (a list's page), for `serializeResponse` to look for it. */
export function mayCarryPage<T extends object>(result: T): T {
  pageCarriers.add(result);
  return result;
}

/**
 * `JSON.stringify` for a JSON-RPC response, as what to send: a response whose result was marked (`mayCarryPage`)
 * and holds a pre-serialized top-level member (a list page) comes back as chunks around those bytes, to be written
 * in order without copying them; any other as a string. Either way the text parses to the same value as
 * `JSON.stringify(response)`.
 */
export function serializeResponse(response: JsonRpcResponse): string | Buffer[] {
  return 'result' in response && pageCarriers.has(response.result) ? spliced(response) : JSON.stringify(response);
}

/** A marked result's response, as chunks around its pre-serialized member when it holds one. */
function spliced(response: JsonRpcSuccessResponse): string | Buffer[] {
  const result = response.result;
  for (const key in result) {
    const value = result[key];
    const bytes = typeof value === 'object' && value !== null ? preserialized.get(value) : undefined;
    if (bytes === undefined) continue;
    const { [key]: _spliced, ...rest } = result;
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":{${JSON.stringify(key)}:`;
    const tail = JSON.stringify(rest);
    return [Buffer.from(head, 'utf8'), bytes, Buffer.from(tail === '{}' ? '}}' : `,${tail.slice(1)}}`, 'utf8')];
  }
  return JSON.stringify(response);
}

/** Whether `text` is more than `limit` bytes of UTF-8; a string short enough cannot be (3 bytes per UTF-16 unit at most) and is not measured. */
export function exceedsBytes(text: string, limit: number): boolean {
  return text.length > limit / 3 && Buffer.byteLength(text) > limit;
}

export function byteLength(chunks: readonly Buffer[]): number {
  return chunks.reduce((length, chunk) => length + chunk.length, 0);
}

/**
 * The response as what a transport sends (text, or chunks around a pre-serialized list page); a result that
 * cannot be sent (a cycle, a BigInt, too deep, or more than `maxBytes`) becomes -32603, the server's fault.
 */
export function serializeWithinLimit(body: JsonRpcResponse, maxBytes: number): string | Buffer[] {
  let text: string | Buffer[];
  try {
    // `serializeResponse` spelled out: one call fewer for every answer.
    text = 'result' in body && pageCarriers.has(body.result) ? spliced(body) : JSON.stringify(body);
  } catch {
    return JSON.stringify(
      errorResponse(idOf(body), ErrorCode.InternalError, 'Internal error: the result could not be serialized'),
    );
  }
  // The length checked here as well: most answers are too short to exceed the limit, and skip the call.
  if (
    typeof text === 'string' ? text.length > maxBytes / 3 && exceedsBytes(text, maxBytes) : byteLength(text) > maxBytes
  ) {
    const message = `Internal error: the result is larger than the response limit of ${maxBytes} bytes`;
    return JSON.stringify(errorResponse(idOf(body), ErrorCode.InternalError, message));
  }
  return text;
}

function idOf(body: JsonRpcResponse): JsonRpcResponse['id'] {
  return 'id' in body ? body.id : null;
}
