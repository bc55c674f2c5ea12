// `nestjs-mcp/core`: for people who build transports or run the kernel without Nest. The protocol (types,
// codes, versions, the classifier), the transport-free kernel and what it is configured with, the Streamable HTTP
// driver and the OAuth resource server. A Nest app needs none of it: `nestjs-mcp` is its surface.

// Protocol: JSON-RPC and MCP types, error codes, versions, the classifier.
export * from '../protocol/error-codes.js';
export * from '../protocol/jsonrpc.js';
export * from '../protocol/mcp-types.js';
export { McpError } from '../protocol/mcp-error.js';
export {
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  META_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
} from '../protocol/versions.js';
export {
  classifyEra,
  classifyMessage,
  classifyHttpRequest,
  classifyStdioRequest,
  type EraVerdict,
  type MessageVerdict,
} from '../protocol/classifier.js';
export { replyAnswer, type ReplyOutcome } from '../protocol/client-reply.js';

// Server: the transport-free kernel and what handlers use.
export { McpKernel } from '../server/kernel/mcp-kernel.js';
export type {
  McpServerOptions,
  McpServerInfo,
  McpLimitsOptions,
  McpListsOptions,
  McpListenOptions,
  McpRequestStateOptions,
  McpErrorReportingOptions,
} from '../server/kernel/mcp-server-options.js';
export type { McpRequestContext } from '../server/mcp-request-context.js';
export type { McpLogger } from '../server/mcp-logger.js';
export type { LegacyLeg, LegacyOptions } from '../server/legacy/legacy-leg.js';
export { McpContext, type ProgressUpdate, type SampleOptions } from '../server/mcp-context.js';
export {
  InputRequired,
  inputRequired,
  type InputRequiredOptions,
  type InputCapability,
} from '../server/input-required.js';
export { InMemoryRequestStateStore, type RequestStateStore } from '../server/input/request-state-store.js';
export { Content } from '../server/content.js';
export { ToolError } from '../server/errors/tool-error.js';
export type { HandlerErrorLogger, HandlerErrorReport } from '../server/failures/handler-error-policy.js';
// The registration types the kernel takes are the Nest surface's (`import type { ... } from 'nestjs-mcp'`);
// only the registry's JSON-Schema-only form of a tool is the kernel's own.
export type { ToolRegistration } from '../server/registry/tool-registry.js';

// Tasks (SEP-2663): the store a deployment plugs in, and the protocol's task states.
export {
  InMemoryTaskStore,
  type TaskStore,
  type StoredTask,
  TaskResultsFull,
  lapsedTask,
  type TaskSignal,
  type TaskLimits,
  type TaskCreateOutcome,
} from '../server/tasks/task-store.js';
export type { TaskOptions } from '../server/tasks/task-options.js';
export type { TaskQueue, QueuedTask, TaskCall } from '../server/tasks/task-queue.js';
export {
  TASKS_EXTENSION,
  isTerminalStatus,
  type DetailedTask,
  type TaskError,
  type TaskStatus,
} from '../protocol/extensions/tasks.js';
// MCP Apps (SEP-1865): the extension's identifiers and wire types, for hosts and gateways that read UI tools.
export {
  UI_EXTENSION,
  UI_MIME_TYPE,
  UI_RESOURCE_URI_META_KEY,
  type UiToolMeta,
  type UiToolVisibility,
  type UiResourceMeta,
} from '../protocol/extensions/apps.js';
export type { UiHtmlHandler } from '../server/registry/ui-resource.js';
export { InProcessEventBus, type McpEvent, type McpEventBus } from '../server/events/event-bus.js';
export {
  InProcessReplyRouter,
  ReplyCancelled,
  ReplyTimeout,
  type ClientReply,
  type PendingReply,
  type PendingRequest,
  type ReplyDelivery,
  type ReplyRouter,
} from '../server/legacy/reply-router.js';
export type { LegacySessionOptions } from '../server/sessions/legacy-sessions.js';
export {
  InMemorySessionStore,
  type SessionAdmission,
  type SessionEvent,
  type SessionEventListener,
  type SessionRecord,
  type SessionStore,
  type SubscribeOutcome,
} from '../server/sessions/session-store.js';
export { insufficientScope } from '../server/access/required-scopes.js';
export type { McpCall, McpCallInterceptor, McpCallObserver, McpCallOutcome } from '../server/mcp-call.js';

// Observability: metrics hook and OpenTelemetry tracing, as kernel interceptors.
export { callEventInterceptor, type McpCallEvent } from '../observability/call-events.js';
export { loadOpenTelemetryInterceptor, type OpenTelemetryOptions } from '../observability/open-telemetry.js';

// HTTP: the Streamable HTTP driver, for use outside Nest or behind another framework.
export { McpHttpDriver } from '../http/mcp-http-driver.js';
export type {
  McpHttpOptions,
  McpHttpAuthenticator,
  HttpAuthentication,
  HttpAuthenticationRefusal,
  HttpRejection,
  PreparedBody,
} from '../http/mcp-http-options.js';
export { LOOPBACK_HOSTS, type HostOriginOptions } from '../http/policy/host-origin-policy.js';
export type { McpCorsOptions } from '../http/policy/cors-policy.js';

// stdio: the same kernel on stdin/stdout, for local clients that launch the server as a child process.
export { McpStdioDriver, type McpStdioOptions, type LineSink } from '../stdio/mcp-stdio-driver.js';

// Authorization: the MCP endpoint as an OAuth 2.1 resource server.
export { OAuthResourceServer } from '../auth/oauth-resource-server.js';
export type { McpAuthOptions, JwtVerifierOptions, IntrospectionVerifierOptions } from '../auth/tokens/auth-options.js';
export { McpPrincipal, scopesOf } from '../auth/tokens/principal.js';
export {
  InvalidTokenError,
  TokenVerificationUnavailableError,
  type TokenVerifier,
} from '../auth/tokens/token-verifier.js';
export { bearerChallenge, type BearerChallenge } from '../auth/www-authenticate.js';
export {
  PROTECTED_RESOURCE_METADATA_PATH,
  type ProtectedResourceMetadata,
} from '../auth/protected-resource-metadata.js';
export { applyServerTimeouts, type ServerTimeouts } from '../http/policy/server-timeouts.js';
export { isLoopbackHost, publicBindWarning } from '../http/policy/bind-address.js';

// Discovery: the MCP Registry entry, from the server's own identity.
export { registryServerJson, type RegistryServerJsonOptions } from '../server/discovery/registry-server-json.js';

// Schemas: conversion of zod, Standard Schema and DTO classes to the JSON Schema the kernel publishes.
export { convertSchema, loadSchemaConverters, toJsonSchema } from '../server/schema/schema-converter.js';
export type { DtoClass, StandardJsonSchemaSource, ZodSchemaSource } from '../server/schema/mcp-schema.js';
