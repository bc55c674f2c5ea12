import { McpConfigurationError } from '../errors/configuration-error.js';
import {
  HANDLER_NOT_A_FUNCTION,
  NOT_AN_OBJECT,
  UI_CSP_NOT_ORIGINS,
  UI_DOMAIN_NOT_A_HOST,
  UI_FILE_NOT_A_PATH,
  UI_FILE_UNREADABLE,
  UI_HTML_EMPTY,
  UI_ONE_SOURCE,
  UI_PERMISSION_NOT_EMPTY,
  UI_PREFERS_BORDER_NOT_BOOLEAN,
  UI_UNKNOWN_CSP_LIST,
  UI_UNKNOWN_PERMISSION,
  UI_URI_WITHOUT_SCHEME,
  UI_WRONG_MIME_TYPE,
} from '../errors/configuration-messages.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  UI_CSP_KEYS,
  UI_MIME_TYPE,
  UI_PERMISSION_KEYS,
  UI_URI_SCHEME,
  type UiResourceMeta,
} from '../../protocol/extensions/apps.js';
import { isPlainObject } from '../../protocol/jsonrpc.js';
import type { ReadResourceResult, TextResourceContents } from '../../protocol/mcp-types.js';
import type { McpContext } from '../mcp-context.js';
import type { ResourceRegistration } from './resource-registry.js';

/** Produces a UI's HTML per read (a template filled from configuration, a per-tenant theme, ...). */
export type UiHtmlHandler = (uri: string, context: McpContext) => string | Promise<string>;

/**
 * A UI resource (MCP Apps): one self-contained HTML document under a `ui://` URI, with what a host needs to
 * sandbox it. Give exactly one of `html`, `file` or `handler`.
 */
export interface UiResourceRegistration extends Omit<ResourceRegistration, 'handler' | 'mimeType'>, UiResourceMeta {
  /** Only `text/html;profile=mcp-app`, the default, is a UI resource. */
  mimeType?: string;
  /** The document itself. */
  html?: string;
  /** A file holding the document (relative to the working directory), read once when registered. */
  file?: string;
  /** Returns the document on each read. */
  handler?: UiHtmlHandler;
}

// A source in a policy is one token: a space, `;` or `,` would let a declared origin add directives of its own.
const CSP_SOURCE = /^[^\s;,'"]+$/;
// A CSP list holds origins only: a web or WebSocket scheme and a host (a leading `*.` for its subdomains), an
// optional port and path. A bare `*`, a scheme alone (`https:`, `data:`) or a keyword would open the view to
// every origin of that kind, which no declared origin means.
const CSP_ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?(\/[^\s;,'"*]*)?$/i;

/**
 * The resource registration of a UI: mimeType fixed, `_meta.ui` on both the list entry and the read's content
 * item (hosts read the latter first), and the document read now when it is static, so a missing file fails
 * start-up and a read costs nothing.
 */
export function toUiResourceRegistration(registration: UiResourceRegistration): ResourceRegistration {
  const { html, file, handler, csp, permissions, domain, prefersBorder, mimeType, ...resource } = registration;
  const uri = registration.uri;
  const owner = `UI resource ${JSON.stringify(uri)}`;
  if (typeof uri !== 'string' || !uri.startsWith(UI_URI_SCHEME) || uri === UI_URI_SCHEME) {
    throw new McpConfigurationError(UI_URI_WITHOUT_SCHEME(owner));
  }
  if (mimeType !== undefined && mimeType !== UI_MIME_TYPE) {
    throw new McpConfigurationError(UI_WRONG_MIME_TYPE(owner, UI_MIME_TYPE, mimeType));
  }
  const sources = [html, file, handler].filter((s) => s !== undefined).length;
  if (sources !== 1) throw new McpConfigurationError(UI_ONE_SOURCE(owner, sources));
  const meta = uiMeta(owner, { csp, permissions, domain, prefersBorder });
  const item = (text: string): TextResourceContents => {
    const contents: TextResourceContents = { uri, mimeType: UI_MIME_TYPE, text };
    if (meta) contents._meta = { ui: meta };
    return contents;
  };
  let read: ResourceRegistration['handler'];
  if (handler !== undefined) {
    if (typeof handler !== 'function') throw new McpConfigurationError(HANDLER_NOT_A_FUNCTION(owner));
    read = async (requested, _variables, context): Promise<ReadResourceResult> => {
      const text = await handler(requested, context);
      if (typeof text !== 'string')
        throw new Error(`${owner}: the handler returned ${typeof text}, not an HTML string`);
      return { contents: [item(text)] };
    };
  } else {
    const text = html !== undefined ? checkedHtml(owner, html) : readHtml(owner, file!);
    const result: ReadResourceResult = { contents: [item(text)] };
    read = () => result;
  }
  return {
    ...resource,
    mimeType: UI_MIME_TYPE,
    _meta: meta ? { ...resource._meta, ui: meta } : resource._meta,
    handler: read,
  };
}

function checkedHtml(owner: string, html: unknown): string {
  if (typeof html !== 'string' || html.length === 0) throw new McpConfigurationError(UI_HTML_EMPTY(owner));
  return html;
}

function readHtml(owner: string, file: unknown): string {
  if (typeof file !== 'string' || file.length === 0) throw new McpConfigurationError(UI_FILE_NOT_A_PATH(owner));
  const path = resolve(file);
  try {
    return checkedHtml(owner, readFileSync(path, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!code) throw error;
    throw new McpConfigurationError(UI_FILE_UNREADABLE(owner, path, code), { cause: error });
  }
}

/** The `_meta.ui` to publish, checked; undefined when nothing is declared. */
function uiMeta(owner: string, given: UiResourceMeta): UiResourceMeta | undefined {
  const meta: UiResourceMeta = {};
  if (given.csp !== undefined) {
    if (!isPlainObject(given.csp)) throw new McpConfigurationError(NOT_AN_OBJECT(owner, 'csp'));
    meta.csp = {};
    for (const [key, value] of Object.entries(given.csp)) {
      if (!(UI_CSP_KEYS as readonly string[]).includes(key)) {
        throw new McpConfigurationError(UI_UNKNOWN_CSP_LIST(owner, key, UI_CSP_KEYS));
      }
      if (value === undefined) continue;
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !CSP_ORIGIN.test(v))) {
        throw new McpConfigurationError(UI_CSP_NOT_ORIGINS(owner, key));
      }
      meta.csp[key as keyof typeof meta.csp] = [...value];
    }
  }
  if (given.permissions !== undefined) {
    if (!isPlainObject(given.permissions)) throw new McpConfigurationError(NOT_AN_OBJECT(owner, 'permissions'));
    meta.permissions = {};
    for (const [key, value] of Object.entries(given.permissions)) {
      if (!(UI_PERMISSION_KEYS as readonly string[]).includes(key)) {
        throw new McpConfigurationError(UI_UNKNOWN_PERMISSION(owner, key, UI_PERMISSION_KEYS));
      }
      if (value === undefined) continue;
      if (!isPlainObject(value)) throw new McpConfigurationError(UI_PERMISSION_NOT_EMPTY(owner, key));
      meta.permissions[key as keyof typeof meta.permissions] = {};
    }
  }
  if (given.domain !== undefined) {
    if (typeof given.domain !== 'string' || !CSP_SOURCE.test(given.domain))
      throw new McpConfigurationError(UI_DOMAIN_NOT_A_HOST(owner));
    meta.domain = given.domain;
  }
  if (given.prefersBorder !== undefined) {
    if (typeof given.prefersBorder !== 'boolean') throw new McpConfigurationError(UI_PREFERS_BORDER_NOT_BOOLEAN(owner));
    meta.prefersBorder = given.prefersBorder;
  }
  return Object.keys(meta).length > 0 ? meta : undefined;
}
