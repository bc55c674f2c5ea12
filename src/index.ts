// `nestjs-mcp`: what a Nest app writes against. The module and its options, the decorators, the injectable
// server and how to inject it by name, what handlers use, return and throw, the errors. An option group's own
// type is the options' member (`McpModuleOptions['http']`), so the groups can grow without growing this list.
// The kernel, the drivers and the pluggable backends' interfaces are in `nestjs-mcp/core`.

// The module, its options and the injectable server.
export { McpModule } from './nest/module/mcp.module.js';
export type { McpModuleOptions } from './nest/module/mcp-module-options.interface.js';
export type { McpCallEvent } from './observability/call-events.js';
export { MCPServer } from './nest/mcp.server.js';
export { getMcpServerToken } from './nest/mcp-server.token.js';
export { InjectMcpServer } from './nest/decorators/inject-mcp-server.decorator.js';
export { bootstrapStdio, type McpStdioBootstrapOptions } from './nest/stdio/bootstrap-stdio.js';

// Decorators for tools, resources and prompts on providers, their parameters and execution context.
export { Tool, type ToolOptions } from './nest/decorators/tool.decorator.js';
export { Resource, type ResourceOptions } from './nest/decorators/resource.decorator.js';
export { ResourceTemplate, type ResourceTemplateOptions } from './nest/decorators/resource-template.decorator.js';
export { Prompt, type PromptOptions } from './nest/decorators/prompt.decorator.js';
export { UiResource, type UiResourceOptions } from './nest/decorators/ui-resource.decorator.js';
export { RouteTool } from './nest/decorators/route-tool.decorator.js';
export { Skill, type SkillOptions } from './nest/decorators/skill.decorator.js';
export { McpEvent } from './nest/decorators/mcp-event.decorator.js';
export type { RouteToolOptions } from './nest/decorators/route-tool-options.interface.js';
export type { McpCompleters } from './nest/decorators/mcp-completers.js';
export { Args } from './nest/decorators/params/args.decorator.js';
export { McpCtx } from './nest/decorators/params/mcp-ctx.decorator.js';
export { InputResponses } from './nest/decorators/params/input-responses.decorator.js';
export { ResourceUri } from './nest/decorators/params/resource-uri.decorator.js';
export { RequireScopes } from './nest/decorators/require-scopes.decorator.js';
export { McpExecutionContext } from './nest/pipeline/mcp-execution-context.js';
export type { McpArgumentsHost } from './nest/pipeline/mcp-arguments-host.js';
export { McpThrottlerGuard } from './nest/pipeline/mcp-throttler.guard.js';

// What handlers get, return and throw.
export { McpContext } from './server/mcp-context.js';
export { InputRequired } from './server/input-required.js';
export { Content } from './server/content.js';
export { ToolError } from './server/errors/tool-error.js';
export { McpError } from './protocol/mcp-error.js';
export { ErrorCode } from './protocol/error-codes.js';
export { insufficientScope } from './server/access/required-scopes.js';
export { McpPrincipal } from './auth/tokens/principal.js';
export type { CallToolResult, ContentBlock } from './protocol/mcp-types.js';

// Run-time registration through MCPServer: schemas in any style, typed handlers, a handle to update or remove.
export type { McpSchema, InferSchemaInput } from './server/schema/mcp-schema.js';
export type { McpToolRegistration } from './server/registry/tool-registration.js';
export type { RegistrationHandle } from './server/registry/registration-handle.js';
export type { ToolHandler, ToolRegistrationOptions } from './server/registry/tool-registry.js';
export type {
  ResourceHandler,
  ResourceRegistration,
  ResourceTemplateRegistration,
  ResourceReadValue,
  Completer,
} from './server/registry/resource-registry.js';
export type { PromptHandler, PromptRegistration, PromptValue } from './server/registry/prompt-registry.js';
export type { UiResourceRegistration } from './server/registry/ui-resource.js';
export type { McpSkill } from './server/skills/skill-options.js';

// Errors: start-up configuration, and what a custom token verifier throws.
export { McpConfigurationError, McpRegistrationError } from './nest/errors/index.js';
export { InvalidTokenError } from './auth/tokens/token-verifier.js';
