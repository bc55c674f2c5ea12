import type {
  JsonSchema,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../../protocol/mcp-types.js';

/**
 * The part of the official SDK's client (`@modelcontextprotocol/client`) the gateway uses, written out so
 * that the library's own types never name the optional package.
 */
export interface UpstreamRequestOptions {
  signal?: AbortSignal;
  timeout?: number;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  resetTimeoutOnProgress?: boolean;
}

/** How the client's response cache is used: the gateway keeps its own lists, and caches no caller's read. */
export interface CacheOptions {
  cacheMode?: 'use' | 'refresh' | 'bypass';
}

export interface UpstreamClient {
  onclose?: () => void;
  connect(transport: unknown, options?: { timeout?: number }): Promise<void>;
  close(): Promise<void>;
  getServerCapabilities(): Record<string, unknown> | undefined;
  /** The upstream's requests for input: answered by the relay of the call they belong to. */
  setRequestHandler(method: string, handler: (request: { params: unknown }) => Promise<unknown>): void;
  setNotificationHandler(method: string, handler: (notification: { params: never }) => void): void;
  listTools(
    params?: undefined,
    options?: CacheOptions,
  ): Promise<{ tools: Array<ToolDefinition & { inputSchema: JsonSchema }> }>;
  listPrompts(params?: undefined, options?: CacheOptions): Promise<{ prompts: PromptDefinition[] }>;
  listResources(params?: undefined, options?: CacheOptions): Promise<{ resources: ResourceDefinition[] }>;
  listResourceTemplates(
    params?: undefined,
    options?: CacheOptions,
  ): Promise<{ resourceTemplates: ResourceTemplateDefinition[] }>;
  /** Which era the connection speaks: `modern` is 2026-07-28. */
  getProtocolEra(): 'legacy' | 'modern' | undefined;
  /**
   * A request of a spec method, its result validated by the SDK; with `allowInputRequired`, a 2026-07-28
   * upstream's `input_required` is handed back rather than fulfilled by the client.
   */
  request(
    request: { method: string; params: Record<string, unknown> },
    options: UpstreamRequestOptions & { allowInputRequired?: boolean },
  ): Promise<unknown>;
}

type ListChanged = { autoRefresh: boolean; onChanged: () => void };

export interface UpstreamClientModule {
  Client: new (
    info: { name: string; version: string },
    options: {
      capabilities: Record<string, unknown>;
      versionNegotiation: { mode: 'auto' };
      listChanged: { tools: ListChanged; prompts: ListChanged; resources: ListChanged };
    },
  ) => UpstreamClient;
  StreamableHTTPClientTransport: new (url: URL, options: { fetch: typeof fetch }) => unknown;
}

export interface UpstreamStdioModule {
  StdioClientTransport: new (params: {
    command: string;
    args: string[];
    cwd: string;
    env?: Record<string, string>;
    stderr: 'inherit';
    maxBufferSize: number;
  }) => unknown;
  getDefaultEnvironment(): Record<string, string>;
}
