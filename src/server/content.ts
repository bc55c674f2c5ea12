import type {
  Annotations,
  AudioContent,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  MetaObject,
  ResourceContents,
  ResourceLink,
  TextContent,
} from '../protocol/mcp-types.js';

interface BlockExtras {
  annotations?: Annotations;
  _meta?: MetaObject;
}

const withExtras = <T extends object>(block: T, extras: BlockExtras = {}): T => {
  const out = block as T & BlockExtras;
  if (extras.annotations) out.annotations = extras.annotations;
  if (extras._meta) out._meta = extras._meta;
  return out;
};

const base64 = (data: string | Uint8Array): string =>
  typeof data === 'string' ? data : Buffer.from(data).toString('base64');

/** Typed builders for tool and prompt content, so handlers never hand-write the wire JSON. */
export const Content = {
  text: (text: string, extras?: BlockExtras): TextContent => withExtras({ type: 'text', text }, extras),
  /** `data` is base64 text, or raw bytes that are encoded here. */
  image: (data: string | Uint8Array, mimeType: string, extras?: BlockExtras): ImageContent =>
    withExtras({ type: 'image', data: base64(data), mimeType }, extras),
  audio: (data: string | Uint8Array, mimeType: string, extras?: BlockExtras): AudioContent =>
    withExtras({ type: 'audio', data: base64(data), mimeType }, extras),
  resource: (resource: ResourceContents, extras?: BlockExtras): EmbeddedResource =>
    withExtras({ type: 'resource', resource }, extras),
  textResource: (uri: string, text: string, mimeType = 'text/plain', extras?: BlockExtras): EmbeddedResource =>
    withExtras({ type: 'resource', resource: { uri, mimeType, text } }, extras),
  blobResource: (uri: string, blob: string | Uint8Array, mimeType: string, extras?: BlockExtras): EmbeddedResource =>
    withExtras({ type: 'resource', resource: { uri, mimeType, blob: base64(blob) } }, extras),
  resourceLink: (link: Omit<ResourceLink, 'type'>): ResourceLink => ({ type: 'resource_link', ...link }),
} as const;

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

export function isContentBlock(value: unknown): value is ContentBlock {
  return typeof value === 'object' && value !== null && CONTENT_TYPES.has((value as { type?: unknown }).type as string);
}

/** Renders any handler value as text: strings as they are, other values as JSON, never `[object Object]`. */
export function renderText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
