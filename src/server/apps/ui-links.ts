import { UI_MIME_TYPE } from '../../protocol/extensions/apps.js';
import type { ResourceDefinition } from '../../protocol/mcp-types.js';

/**
 * Why a tool's UI cannot be rendered, or undefined when it can: a host reads the named resource and renders it
 * only as a UI document, so it must be registered, as a resource (not a template), with the UI mimeType.
 */
export function uiLinkProblem(
  tool: string,
  resourceUri: string,
  resource: ResourceDefinition | undefined,
): string | undefined {
  if (!resource) {
    return `tool "${tool}" names the UI resource "${resourceUri}", which is not registered: register it (@UiResource or addUiResource) or fix the uri`;
  }
  if (resource.mimeType !== UI_MIME_TYPE) {
    return `tool "${tool}" names "${resourceUri}", whose mimeType is ${JSON.stringify(resource.mimeType)}, not "${UI_MIME_TYPE}": register it with @UiResource or addUiResource`;
  }
  return undefined;
}
