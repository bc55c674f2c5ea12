import type { JsonRpcResponse } from '../protocol/jsonrpc.js';

// The JSON text of values that never change once published (list pages), keyed by the value itself.
const preserialized = new WeakMap<object, string>();

/**
 * Freezes a value and serializes it once, so every response that carries it reuses the text instead of
 * stringifying it again: a page of 1,000 tool definitions costs one `JSON.stringify` per registry version,
 * not one per request. Freezing keeps the text true to the value.
 */
export function preserialize<T extends object>(value: T): Readonly<T> {
  const frozen = Object.freeze(value);
  preserialized.set(frozen, JSON.stringify(frozen));
  return frozen;
}

/**
 * `JSON.stringify` for a JSON-RPC response that splices in the pre-serialized text of any top-level result
 * member that has one. The output parses to the same value as `JSON.stringify(response)`.
 */
export function stringifyResponse(response: JsonRpcResponse): string {
  if (!('result' in response)) return JSON.stringify(response);
  const result = response.result;
  for (const key in result) {
    const value = result[key];
    const text = typeof value === 'object' && value !== null ? preserialized.get(value) : undefined;
    if (text === undefined) continue;
    const { [key]: _spliced, ...rest } = result;
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":{${JSON.stringify(key)}:${text}`;
    const tail = JSON.stringify(rest);
    return tail === '{}' ? `${head}}}` : `${head},${tail.slice(1)}}`;
  }
  return JSON.stringify(response);
}
