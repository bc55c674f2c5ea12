import { isPlainObject } from '../jsonrpc.js';
import type { ClientCapabilities } from '../mcp-types.js';

/**
 * The MCP Apps extension (SEP-1865, `io.modelcontextprotocol/ui`, spec 2026-01-26): a tool names a `ui://`
 * resource holding one HTML document, which a host renders in a sandboxed iframe next to the tool's result.
 */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The mimeType of a UI resource. */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat key hosts read besides `_meta.ui.resourceUri` (the first drafts' form; hosts check both). */
export const UI_RESOURCE_URI_META_KEY = 'ui/resourceUri';
export const UI_URI_SCHEME = 'ui://';

/** Origins a UI may reach; a host turns each list into a Content-Security-Policy directive. Omitted: none. */
export interface UiResourceCsp {
  /** `connect-src`: fetch, XHR and WebSocket. */
  connectDomains?: string[];
  /** `img-src`, `script-src`, `style-src`, `font-src`, `media-src`; wildcard subdomains allowed. */
  resourceDomains?: string[];
  /** `frame-src`: nested iframes. */
  frameDomains?: string[];
  /** `base-uri`. */
  baseUriDomains?: string[];
}

/** Browser features a UI asks for; a host maps them to the iframe's `allow` attribute. */
export interface UiResourcePermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** A UI resource's `_meta.ui`: on its `resources/read` content item, and on its `resources/list` entry. */
export interface UiResourceMeta {
  csp?: UiResourceCsp;
  permissions?: UiResourcePermissions;
  /** A dedicated sandbox origin; its format is the host's (e.g. `{hash}.claudemcpcontent.com`). */
  domain?: string;
  /** Whether the UI wants the host to draw a border and background around it; omitted, the host decides. */
  prefersBorder?: boolean;
}

/** Who may call a UI tool: the model (it is offered to the agent) and/or the app (the UI calls it through the host). */
export type UiToolVisibility = 'model' | 'app';

/** A tool's `_meta.ui`. */
export interface UiToolMeta {
  resourceUri: string;
  /** Default (omitted): both. */
  visibility?: UiToolVisibility[];
}

export const UI_CSP_KEYS: readonly (keyof UiResourceCsp)[] = [
  'connectDomains',
  'resourceDomains',
  'frameDomains',
  'baseUriDomains',
];
export const UI_PERMISSION_KEYS: readonly (keyof UiResourcePermissions)[] = [
  'camera',
  'microphone',
  'geolocation',
  'clipboardWrite',
];

/** What a client declared of the extension (`{ mimeTypes }`), or undefined when it did not declare it. */
export function uiCapabilityOf(capabilities: ClientCapabilities | undefined): { mimeTypes?: string[] } | undefined {
  const declared = capabilities?.extensions?.[UI_EXTENSION];
  return isPlainObject(declared) ? (declared as { mimeTypes?: string[] }) : undefined;
}
