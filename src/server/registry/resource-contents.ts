import { ErrorCode } from '../../protocol/error-codes.js';
import { isPlainObject } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { ResourceContents } from '../../protocol/mcp-types.js';
import type { ResourceReadValue } from './resource-registry.js';

/** What a resource handler returned, as the `contents` of a read: text, bytes, contents objects or a full result. */
export function resourceContents(
  value: ResourceReadValue,
  uri: string,
  mimeType: string | undefined,
): ResourceContents[] {
  if (typeof value === 'string') return [withMime({ uri, text: value }, mimeType)];
  if (value instanceof Uint8Array) return [withMime({ uri, blob: Buffer.from(value).toString('base64') }, mimeType)];
  if (Array.isArray(value)) return value;
  if (isPlainObject(value) && Array.isArray(value.contents)) return value.contents as ResourceContents[];
  if (isPlainObject(value) && typeof value.uri === 'string') return [value as ResourceContents];
  throw new McpError(ErrorCode.InternalError, `Resource "${uri}" returned no contents`);
}

function withMime<T extends { uri: string }>(contents: T, mimeType: string | undefined): T {
  return mimeType === undefined ? contents : { ...contents, mimeType };
}
