import type { GetSkillResult, ListSkillsResult, ReadDirectoryResult } from './skills.js';

/** MCP 2026-07-28 shapes the server produces or reads (from `schema/2026-07-28/schema.ts`). */

export type JsonSchema = Record<string, unknown>;
export type MetaObject = Record<string, unknown>;

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Annotations {
  audience?: Array<'user' | 'assistant'>;
  priority?: number;
  lastModified?: string;
}

export interface ClientCapabilities {
  experimental?: Record<string, unknown>;
  roots?: Record<string, unknown>;
  sampling?: { context?: Record<string, unknown>; tools?: Record<string, unknown> };
  elicitation?: { form?: Record<string, unknown>; url?: Record<string, unknown> };
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  completions?: Record<string, never>;
  logging?: Record<string, never>;
  extensions?: Record<string, unknown>;
  experimental?: Record<string, unknown>;
}

export type CacheScope = 'public' | 'private';

export interface CacheHints {
  ttlMs: number;
  cacheScope: CacheScope;
}

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: MetaObject;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: MetaObject;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: MetaObject;
}
export interface ResourceLink extends ResourceDefinition {
  type: 'resource_link';
}
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: MetaObject;
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  resultType?: 'complete';
  _meta?: MetaObject;
}

/** What the spec's `Resource` and `ResourceLink` share: a URI with display metadata. */
export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: MetaObject;
}

export interface ResourceTemplateDefinition {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: MetaObject;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface PromptDefinition {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: MetaObject;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: MetaObject;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: MetaObject;
}

export interface CompletionValues {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

export interface CompleteResult {
  completion: CompletionValues;
  _meta?: MetaObject;
}

/** One page of a list method. */
interface PagedResult {
  nextCursor?: string;
  _meta?: MetaObject;
}

export interface ListToolsResult extends PagedResult {
  tools: ToolDefinition[];
}

export interface ListResourcesResult extends PagedResult {
  resources: ResourceDefinition[];
}

export interface ListResourceTemplatesResult extends PagedResult {
  resourceTemplates: ResourceTemplateDefinition[];
}

export interface ListPromptsResult extends PagedResult {
  prompts: PromptDefinition[];
}

export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  _meta?: MetaObject;
}

/** The closing result of a listen stream: only the subscription id, in `_meta`. */
export interface SubscriptionsListenResult {
  _meta: MetaObject;
}

/** The result of any method this server answers, before the protocol revision's own fields are added. */
export type McpResult =
  | CallToolResult
  | ReadResourceResult
  | GetPromptResult
  | CompleteResult
  | ListToolsResult
  | ListResourcesResult
  | ListResourceTemplatesResult
  | ListPromptsResult
  | DiscoverResult
  | SubscriptionsListenResult
  | ListSkillsResult
  | GetSkillResult
  | ReadDirectoryResult;

/**
 * The 2026-07-28 interim result: the server needs the client's answers to `inputRequests` first, and the client
 * sends them back with `requestState`. A `tools/call` one also carries `content` (and `requests`, the same
 * requests under their earlier name) for clients that show the result as it is.
 */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests: InputRequests;
  requestState: string;
  requests?: InputRequests;
  content?: ContentBlock[];
  _meta?: MetaObject;
}

/** A request the server embeds in an `InputRequiredResult` (never sent as a JSON-RPC request). */
export interface ElicitRequest {
  method: 'elicitation/create';
  params:
    { mode?: 'form'; message: string; requestedSchema: JsonSchema } | { mode: 'url'; message: string; url: string };
}
export interface CreateMessageRequest {
  method: 'sampling/createMessage';
  params: {
    messages: Array<{ role: 'user' | 'assistant'; content: unknown }>;
    maxTokens: number;
    systemPrompt?: string;
    temperature?: number;
    stopSequences?: string[];
    modelPreferences?: Record<string, unknown>;
    includeContext?: 'none' | 'thisServer' | 'allServers';
    metadata?: Record<string, unknown>;
    tools?: unknown[];
    toolChoice?: unknown;
  };
}
export interface ListRootsRequest {
  method: 'roots/list';
  params?: Record<string, unknown>;
}
export type InputRequest = ElicitRequest | CreateMessageRequest | ListRootsRequest;
export type InputRequests = Record<string, InputRequest>;

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}
export interface CreateMessageResult {
  role: 'user' | 'assistant';
  content: unknown;
  model: string;
  stopReason?: string;
}
export interface ListRootsResult {
  roots: Array<{ uri: string; name?: string }>;
}
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult;
export type InputResponses = Record<string, InputResponse>;

export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LoggingLevel = (typeof LOG_LEVELS)[number];
