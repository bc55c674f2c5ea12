import { isPlainObject } from '../../protocol/jsonrpc.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { INVALID_EXTENSION } from '../errors/configuration-messages.js';

/** Extensions an app declares itself: settings under each identifier. */
export type DeclaredExtensions = Record<string, Record<string, unknown>>;

// SEP-2133: a vendor prefix and a name, one slash between; no white space (it travels as a JSON key and a log word).
const EXTENSION_ID = /^[^\s/]+\/[^\s/]+$/;

/**
 * Checks and copies the app's extensions once, so an app that changes its object later changes nothing; none
 * declared is undefined. `option` names the option in the error. On 2026-07-28 (`anyJson` false) settings hold
 * only what that revision's JSONValue allows: objects, arrays, strings, integers and booleans, never null or a
 * fraction; the 2025-era handshake carries any JSON object.
 */
export function checkedExtensions(
  option: string,
  extensions: unknown,
  anyJson: boolean,
): DeclaredExtensions | undefined {
  if (!isPlainObject(extensions))
    throw new McpConfigurationError(INVALID_EXTENSION(option, String(extensions), anyJson));
  for (const [id, settings] of Object.entries(extensions)) {
    if (!EXTENSION_ID.test(id) || !isPlainObject(settings) || !(anyJson ? isJson(settings) : isJsonValue(settings)))
      throw new McpConfigurationError(INVALID_EXTENSION(option, id, anyJson));
  }
  if (Object.keys(extensions).length === 0) return undefined;
  return JSON.parse(JSON.stringify(extensions)) as DeclaredExtensions;
}

function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isInteger(value);
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  return isPlainObject(value) && Object.values(value).every((item) => isJsonValue(item, depth + 1));
}

function isJson(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJson(item, depth + 1));
  return isPlainObject(value) && Object.values(value).every((item) => isJson(item, depth + 1));
}
