/** Reflect-metadata keys of the MCP decorators. */
export const MCP_TOOL_METADATA = 'mcp:tool';
export const MCP_RESOURCE_METADATA = 'mcp:resource';
export const MCP_RESOURCE_TEMPLATE_METADATA = 'mcp:resource-template';
export const MCP_PROMPT_METADATA = 'mcp:prompt';
export const MCP_UI_RESOURCE_METADATA = 'mcp:ui-resource';
export const MCP_ROUTE_TOOL_METADATA = 'mcp:route-tool';
export const MCP_SKILL_METADATA = 'mcp:skill';
export const MCP_EVENT_METADATA = 'mcp:event';
/** Set on a method whose parameters no MCP decorator declared: it takes the kernel's `(args, inputResponses, ctx)`. */
export const MCP_DEFAULT_PARAMS_METADATA = 'mcp:default-params';
/**
 * Marks the handler a primitive's guards are run against to decide whether a caller sees it (`hideWhenDenied`,
 * `hideForbidden`): a guard that limits rather than authorises (a rate limiter) lets it pass.
 */
export const MCP_VISIBILITY_PROBE_METADATA = 'mcp:visibility-probe';
/** Marks an MCP endpoint's controller: a rate limiter counts the calls it carries where they run, not the POST. */
export const MCP_ENDPOINT_METADATA = 'mcp:endpoint';
/**
 * Where MCP parameter decorators record their parameters: Nest's own route-arguments key, as `@nestjs/graphql`
 * does, so Nest's scanner instantiates the pipes they name and custom `createParamDecorator` decorators work.
 */
export { ROUTE_ARGS_METADATA as MCP_PARAM_ARGS_METADATA } from '@nestjs/common/constants.js';
