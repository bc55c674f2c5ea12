import { SetMetadata } from '@nestjs/common';
import type { UiResourceRegistration } from '../../server/registry/ui-resource.js';
import { MCP_UI_RESOURCE_METADATA } from '../mcp-metadata.constants.js';
import { McpParamtype } from '../pipeline/mcp-paramtype.enum.js';
import { defaultMcpParams } from './params/mcp-param-decorator.factory.js';

/** A UI resource declared on a method, which returns its HTML document. */
export type UiResourceOptions = Omit<UiResourceRegistration, 'html' | 'file' | 'handler' | 'visible'>;

/**
 * Declares a provider method as an MCP Apps UI resource: a `ui://` URI whose `resources/read` serves the HTML
 * the method returns, as `text/html;profile=mcp-app`, with `csp`, `permissions`, `domain` and `prefersBorder` in
 * `_meta.ui`. A tool shows it with `@Tool({ ui: { resourceUri } })`. For a document that never changes (a built
 * bundle), `MCPServer.addUiResource({ uri, file })` reads it once at start-up instead. Without parameter
 * decorators the method receives `(uri, ctx)`.
 */
export function UiResource(options: UiResourceOptions): MethodDecorator {
  return (target, key, descriptor) => {
    defaultMcpParams(target, key, [McpParamtype.URI, McpParamtype.CONTEXT]);
    SetMetadata(MCP_UI_RESOURCE_METADATA, options)(target, key, descriptor);
  };
}
