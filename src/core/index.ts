// `nestjs-mcp/core`: for people who write a transport or a shared store, or run the kernel without Nest. The
// transport-free kernel and its options, the HTTP and stdio drivers, the interfaces of the pluggable backends
// with their in-process implementations, `McpError` and the codes, and the types those signatures use. A Nest
// app needs none of it: `nestjs-mcp` is its surface, and the registration types the kernel takes are its too.

// The kernel: what it is built with, what a transport hands it, what it answers, and its interceptors.
export { McpKernel } from '../server/kernel/mcp-kernel.js';
export type { McpServerOptions } from '../server/kernel/mcp-server-options.js';
export type { McpRequestContext } from '../server/mcp-request-context.js';
export type { McpLogger } from '../server/mcp-logger.js';
export type { McpCall, McpCallInterceptor, McpCallObserver, McpCallOutcome } from '../server/mcp-call.js';
export type { ToolRegistration } from '../server/registry/tool-registry.js';
export type { JsonRpcRequest, JsonRpcResponse, RequestId } from '../protocol/jsonrpc.js';
export { McpError } from '../protocol/mcp-error.js';
export { ErrorCode } from '../protocol/error-codes.js';
export { loadOpenTelemetryInterceptor } from '../observability/open-telemetry.js';

// The drivers: Streamable HTTP on Node's request and response, and stdio.
export { McpHttpDriver } from '../http/mcp-http-driver.js';
export type {
  McpHttpOptions,
  McpHttpAuthenticator,
  HttpAuthentication,
  HttpAuthenticationRefusal,
  HttpRejection,
  PreparedBody,
} from '../http/mcp-http-options.js';
export { McpStdioDriver, type McpStdioOptions, type LineSink } from '../stdio/mcp-stdio-driver.js';

// The pluggable backends (what `nestjs-mcp/redis` implements), each with its in-process implementation.
export { InMemoryRequestStateStore, type RequestStateStore } from '../server/input/request-state-store.js';
export { InProcessEventBus, type McpBusEvent, type McpEventBus } from '../server/events/event-bus.js';
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
export {
  InMemorySessionStore,
  type SessionAdmission,
  type SessionEvent,
  type SessionEventListener,
  type SessionRecord,
  type SessionStore,
  type SubscribeOutcome,
} from '../server/sessions/session-store.js';
export {
  InMemoryTaskStore,
  TaskResultsFull,
  lapsedTask,
  type TaskStore,
  type StoredTask,
  type TaskSignal,
  type TaskLimits,
  type TaskCreateOutcome,
} from '../server/tasks/task-store.js';
export type { DetailedTask, TaskStatus } from '../protocol/extensions/tasks.js';
export type { TaskQueue, QueuedTask, TaskCall } from '../server/tasks/task-queue.js';

// The MCP Registry's server.json, from the same name, version and info as the Server Card.
export { registryServerJson, type RegistryServerJsonOptions } from '../server/discovery/registry-server-json.js';
