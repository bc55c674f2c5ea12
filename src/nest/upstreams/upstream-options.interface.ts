import type { CanActivate, Type } from '@nestjs/common';
import type { McpUpstreamOptions } from '../../server/upstreams/upstream-options.js';

/**
 * An upstream MCP server mounted on this one (see docs/gateway.md): over Streamable HTTP (`url`) or stdio
 * (`command`), plus the guards that run before every mounted tool, prompt and resource of it.
 */
export type McpModuleUpstream = McpUpstreamOptions & {
  /** Guard classes (or instances), as `@UseGuards` takes them, built with McpModule's providers. */
  guards?: Array<Type<CanActivate> | CanActivate>;
};
