import { isPlainObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities } from '../../protocol/mcp-types.js';
import { META_CLIENT_CAPABILITIES } from '../../protocol/versions.js';

/** The capabilities the client declared in the request envelope, or undefined when it declared none. */
export function clientCapabilitiesOf(request: JsonRpcRequest): ClientCapabilities | undefined {
  const meta = request.params?._meta;
  if (!isPlainObject(meta) || !isPlainObject(meta[META_CLIENT_CAPABILITIES])) return undefined;
  return meta[META_CLIENT_CAPABILITIES] as ClientCapabilities;
}

/** The part of `required` the client did not declare, or undefined when it declared all of it. */
export function missingCapabilities(
  required: ClientCapabilities,
  declared: ClientCapabilities,
): ClientCapabilities | undefined {
  let missing: ClientCapabilities | undefined;
  for (const [name, sub] of Object.entries(required)) {
    const have = declared[name];
    if (!isPlainObject(have)) {
      missing = mergeCapabilities(missing, { [name]: sub ?? {} });
      continue;
    }
    for (const subName of Object.keys(isPlainObject(sub) ? sub : {})) {
      if (!isPlainObject(have[subName])) missing = mergeCapabilities(missing, { [name]: { [subName]: {} } });
    }
  }
  return missing;
}

export function mergeCapabilities(into: ClientCapabilities | undefined, add: ClientCapabilities): ClientCapabilities {
  const out: ClientCapabilities = { ...(into ?? {}) };
  for (const [name, sub] of Object.entries(add)) {
    out[name] = { ...(isPlainObject(out[name]) ? out[name] : {}), ...(isPlainObject(sub) ? sub : {}) };
  }
  return out;
}
