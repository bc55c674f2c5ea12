// `nestjs-mcp`: what a Nest app writes against. The module and its options, the decorators, the injectable
// server and how to inject it by name, what handlers use and return, the errors. Transport builders find the
// kernel, the drivers and the protocol helpers in `nestjs-mcp/core`.

// The module, its options and the injectable server.
export { McpModule } from './nest/mcp.module.js';
export type {
  McpModuleOptions,
  McpModuleExtras,
  McpObservabilityOptions,
} from './nest/mcp-module-options.interface.js';
export { MCPServer } from './nest/mcp.server.js';
export { getMcpServerToken } from './nest/mcp-server.token.js';
export { InjectMcpServer } from './nest/decorators/inject-mcp-server.decorator.js';
export { bootstrapStdio, type McpStdioBootstrapOptions, type McpStdioApplication } from './nest/bootstrap-stdio.js';

// Decorators for tools, resources and prompts on providers, their parameters and execution context.
export { Tool, type ToolOptions } from './nest/decorators/tool.decorator.js';
export { Resource, type ResourceOptions } from './nest/decorators/resource.decorator.js';
export { ResourceTemplate, type ResourceTemplateOptions } from './nest/decorators/resource-template.decorator.js';
export { Prompt, type PromptOptions } from './nest/decorators/prompt.decorator.js';
export { RouteTool } from './nest/decorators/route-tool.decorator.js';
export type {
  RouteToolOptions,
  RouteArgumentSource,
  McpRoutesOptions,
} from './nest/routes/route-tool-options.interface.js';
export type { McpCompleters } from './nest/decorators/mcp-completers.js';
export { Args } from './nest/decorators/args.decorator.js';
export { McpCtx } from './nest/decorators/mcp-ctx.decorator.js';
export { InputResponses } from './nest/decorators/input-responses.decorator.js';
export { ResourceUri } from './nest/decorators/resource-uri.decorator.js';
export { RequireScopes } from './nest/require-scopes.decorator.js';
export { McpExecutionContext, type McpContextType } from './nest/mcp-execution-context.js';
export type { McpArgumentsHost } from './nest/mcp-arguments-host.js';

// What handlers get, return and throw.
export { McpContext, type ProgressUpdate, type SampleOptions } from './server/mcp-context.js';
export { InputRequired, type InputRequiredOptions, type InputCapability } from './server/input/input-required.js';
export { Content } from './server/content.js';
export { ToolError } from './server/errors/tool-error.js';
export { McpError } from './protocol/mcp-error.js';
export { ErrorCode } from './protocol/error-codes.js';
export { insufficientScope } from './server/access/required-scopes.js';
export { McpPrincipal } from './auth/principal.js';
export type * from './protocol/mcp-types.js';

// Run-time registration through MCPServer: schemas in any style, typed handlers, a handle to update or remove.
export type {
  McpSchema,
  InferSchemaInput,
  StandardJsonSchemaSource,
  ZodSchemaSource,
} from './server/schema/mcp-schema.js';
export type { McpToolRegistration } from './server/registry/tool-registration.js';
export type { RegistrationHandle } from './server/registry/registration-handle.js';
export type {
  ToolHandler,
  ToolRegistrationOptions,
  ToolVisibility,
  TaskSupport,
} from './server/registry/tool-registry.js';
export type {
  ResourceHandler,
  ResourceRegistration,
  ResourceTemplateRegistration,
  ResourceReadValue,
  Completer,
} from './server/registry/resource-registry.js';
export type { PromptHandler, PromptRegistration, PromptValue } from './server/registry/prompt-registry.js';
export type { McpCall, McpCallInterceptor, McpCallOutcome } from './server/mcp-call.js';

// Errors: start-up configuration, and what a custom token verifier throws.
export { McpConfigurationError, McpRegistrationError } from './nest/errors/index.js';
export { InvalidTokenError, TokenVerificationUnavailableError, type TokenVerifier } from './auth/token-verifier.js';

// Types of the options.
export type { McpServerOptions } from './server/mcp-server-options.js';
export type { LegacyOptions } from './server/legacy/legacy-leg.js';
export type { McpEvent, McpEventBus } from './server/events/event-bus.js';
export type { RequestStateStore } from './server/input/request-state-store.js';
export type { TaskStore, StoredTask } from './server/tasks/task-store.js';
export type { TaskOptions } from './server/tasks/task-runner.js';
export type { TaskStatus } from './protocol/tasks.js';
export type { McpCallEvent } from './observability/call-events.js';
export type { OpenTelemetryOptions } from './observability/open-telemetry.js';
export type { McpAuthOptions, JwtVerifierOptions, IntrospectionVerifierOptions } from './auth/auth-options.js';
export type { McpCorsOptions } from './http/cors-policy.js';
export type { HostOriginOptions } from './http/host-origin-policy.js';
export type { ServerTimeouts } from './http/server-timeouts.js';
export { applyServerTimeouts } from './http/server-timeouts.js';
