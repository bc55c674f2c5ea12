import { McpConfigurationError } from '../errors/configuration-error.js';
import { TOOL_UI_NOT_AN_OBJECT, TOOL_UI_RESOURCE_URI, TOOL_UI_VISIBILITY } from '../errors/configuration-messages.js';
import { UI_RESOURCE_URI_META_KEY, UI_URI_SCHEME, type UiToolMeta } from '../../protocol/extensions/apps.js';
import type { MetaObject } from '../../protocol/mcp-types.js';

const VISIBILITIES: readonly string[] = ['model', 'app'];

/** Checks a tool's `ui` option; throws naming the tool and what is wrong. */
export function checkToolUi(tool: string, ui: UiToolMeta): void {
  const owner = `Tool "${tool}": ui`;
  if (typeof ui !== 'object' || ui === null) throw new McpConfigurationError(TOOL_UI_NOT_AN_OBJECT(owner));
  const { resourceUri, visibility } = ui;
  if (typeof resourceUri !== 'string' || !resourceUri.startsWith(UI_URI_SCHEME) || resourceUri === UI_URI_SCHEME) {
    throw new McpConfigurationError(TOOL_UI_RESOURCE_URI(owner, resourceUri));
  }
  if (visibility === undefined) return;
  if (
    !Array.isArray(visibility) ||
    visibility.length === 0 ||
    visibility.some((v) => !VISIBILITIES.includes(v)) ||
    new Set(visibility).size !== visibility.length
  ) {
    throw new McpConfigurationError(TOOL_UI_VISIBILITY(owner, visibility));
  }
}

/**
 * The tool's `_meta` with its UI: `ui.resourceUri` (and `visibility`) plus the flat `ui/resourceUri` key, which
 * hosts built on the first drafts read instead; both are written so every host finds the UI.
 */
export function withToolUi(meta: MetaObject | undefined, ui: UiToolMeta): MetaObject {
  const declared: UiToolMeta = { resourceUri: ui.resourceUri };
  if (ui.visibility) declared.visibility = [...ui.visibility];
  const given = meta?.ui;
  return {
    ...meta,
    ui: typeof given === 'object' && given !== null ? { ...given, ...declared } : declared,
    [UI_RESOURCE_URI_META_KEY]: ui.resourceUri,
  };
}
