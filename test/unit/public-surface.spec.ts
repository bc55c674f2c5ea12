import { compiledSurface, type CompiledSurface, type EntryPoint } from '../support/export-surface.js';

/**
 * The names each entry point exports. Every one is a semver promise, so growth is deliberate: a new export fails
 * here until it is added to the list below (runtime values from the loaded module, types from the compiler).
 */
const SURFACE: Record<EntryPoint, { values: string[]; types: string[] }> = {
  'nestjs-mcp': {
    values: [
      'Args',
      'Content',
      'ErrorCode',
      'InjectMcpServer',
      'InputRequired',
      'InputResponses',
      'InvalidTokenError',
      'MCPServer',
      'McpConfigurationError',
      'McpContext',
      'McpCtx',
      'McpError',
      'McpEvent',
      'McpExecutionContext',
      'McpModule',
      'McpPrincipal',
      'McpRegistrationError',
      'McpThrottlerGuard',
      'Prompt',
      'RequireScopes',
      'Resource',
      'ResourceTemplate',
      'ResourceUri',
      'RouteTool',
      'Skill',
      'Tool',
      'ToolError',
      'UiResource',
      'bootstrapStdio',
      'getMcpServerToken',
      'insufficientScope',
    ],
    types: [
      'CallToolResult',
      'Completer',
      'ContentBlock',
      'InferSchemaInput',
      'McpArgumentsHost',
      'McpCallEvent',
      'McpCompleters',
      'McpModuleOptions',
      'McpSchema',
      'McpSkill',
      'McpStdioBootstrapOptions',
      'McpToolRegistration',
      'PromptHandler',
      'PromptOptions',
      'PromptRegistration',
      'PromptValue',
      'RegistrationHandle',
      'ResourceHandler',
      'ResourceOptions',
      'ResourceReadValue',
      'ResourceRegistration',
      'ResourceTemplateOptions',
      'ResourceTemplateRegistration',
      'RouteToolOptions',
      'SkillOptions',
      'ToolHandler',
      'ToolOptions',
      'ToolRegistrationOptions',
      'UiResourceOptions',
      'UiResourceRegistration',
    ],
  },
  'nestjs-mcp/core': {
    values: [
      'ErrorCode',
      'InMemoryRequestStateStore',
      'InMemorySessionStore',
      'InMemoryTaskStore',
      'InProcessEventBus',
      'InProcessReplyRouter',
      'McpError',
      'McpHttpDriver',
      'McpKernel',
      'McpStdioDriver',
      'ReplyCancelled',
      'ReplyTimeout',
      'TaskResultsFull',
      'lapsedTask',
      'loadOpenTelemetryInterceptor',
      'registryServerJson',
    ],
    types: [
      'ClientReply',
      'DetailedTask',
      'HttpAuthentication',
      'HttpAuthenticationRefusal',
      'HttpRejection',
      'JsonRpcRequest',
      'JsonRpcResponse',
      'LineSink',
      'McpBusEvent',
      'McpCall',
      'McpCallInterceptor',
      'McpCallObserver',
      'McpCallOutcome',
      'McpEventBus',
      'McpHttpAuthenticator',
      'McpHttpOptions',
      'McpLogger',
      'McpRequestContext',
      'McpServerOptions',
      'McpStdioOptions',
      'PendingReply',
      'PendingRequest',
      'PreparedBody',
      'QueuedTask',
      'RegistryServerJsonOptions',
      'ReplyDelivery',
      'ReplyRouter',
      'RequestId',
      'RequestStateStore',
      'SessionAdmission',
      'SessionEvent',
      'SessionEventListener',
      'SessionRecord',
      'SessionStore',
      'StoredTask',
      'SubscribeOutcome',
      'TaskCall',
      'TaskCreateOutcome',
      'TaskLimits',
      'TaskQueue',
      'TaskSignal',
      'TaskStatus',
      'TaskStore',
      'ToolRegistration',
    ],
  },
  'nestjs-mcp/testing': {
    values: [
      'McpTestClient',
      'createMcpTestClient',
      'createToolContext',
      'mcpHeaders',
      'mcpMessage',
      'renderToolUi',
      'runConformance',
      'sseMessages',
      'uiContentSecurityPolicy',
    ],
    types: [
      'ConformanceCheck',
      'ConformanceEra',
      'ConformanceResult',
      'InputAnswers',
      'McpMessageOptions',
      'McpRequestOptions',
      'McpTestClientOptions',
      'McpTestExchange',
      'McpTestResponse',
      'McpTestTarget',
      'RenderToolUiOptions',
      'RenderedToolUi',
      'RunConformanceOptions',
      'ToolContextHarness',
      'ToolContextOptions',
      'UiHostConnection',
    ],
  },
  'nestjs-mcp/redis': {
    values: [
      'McpRedisBackends',
      'McpRedisConnections',
      'McpRedisModule',
      'RedisEventBus',
      'RedisEventStore',
      'RedisReplyRouter',
      'RedisRequestStateStore',
      'RedisSessionStore',
      'RedisTaskStore',
    ],
    types: ['McpRedisOptions'],
  },
  'nestjs-mcp/plugin': {
    values: ['ReadonlyVisitor', 'before', 'factory', 'name', 'version'],
    types: ['McpPluginOptions'],
  },
  'nestjs-mcp/bullmq': {
    values: ['McpBullModule', 'McpTaskQueue', 'McpTaskWorker', 'bootstrapTaskWorker'],
    types: ['McpBullOptions', 'McpTaskWorkerBootstrapOptions'],
  },
};

const load: Record<EntryPoint, () => Promise<Record<string, unknown>>> = {
  'nestjs-mcp': () => import('../../src/index.js'),
  'nestjs-mcp/core': () => import('../../src/core/index.js'),
  'nestjs-mcp/testing': () => import('../../src/testing/index.js'),
  'nestjs-mcp/redis': () => import('../../src/redis/index.js'),
  'nestjs-mcp/plugin': () => import('../../src/plugin/index.js'),
  'nestjs-mcp/bullmq': () => import('../../src/bullmq/index.js'),
};

describe('The exported surface of each entry point', () => {
  let compiled: CompiledSurface['exports'];
  let moduleOptionKeys: string[];

  beforeAll(async () => {
    const surface = await compiledSurface();
    compiled = surface.exports;
    moduleOptionKeys = surface.typeKeys.McpModuleOptions;
  }, 120_000);

  describe.each(Object.keys(SURFACE) as EntryPoint[])('%s', (entry) => {
    it('exports exactly these runtime values', async () => {
      expect(Object.keys(await load[entry]()).sort()).toEqual(SURFACE[entry].values);
    });

    it('exports exactly these names to the compiler (the values above and these types)', () => {
      expect(compiled[entry]).toEqual([...SURFACE[entry].values, ...SURFACE[entry].types].sort());
    });
  });

  it('keeps each surface worth promising: at most 64 names in the main entry, 60 in core, 10 in redis', () => {
    expect(compiled['nestjs-mcp'].length).toBeLessThanOrEqual(64);
    expect(compiled['nestjs-mcp/core'].length).toBeLessThanOrEqual(60);
    expect(compiled['nestjs-mcp/redis'].length).toBeLessThanOrEqual(10);
  });

  it('shares only the protocol error and its codes between the main entry and core', () => {
    const core = new Set(compiled['nestjs-mcp/core']);
    expect(compiled['nestjs-mcp'].filter((name) => core.has(name))).toEqual(['ErrorCode', 'McpError']);
  });

  it('groups the module options: at most 20 top-level keys, none of them a flat key of the earlier shape', () => {
    const keys = moduleOptionKeys;
    expect(keys.length).toBeLessThanOrEqual(20);
    expect(keys).toEqual([
      'auth',
      'events',
      'extensions',
      'hideForbidden',
      'http',
      'include',
      'info',
      'instructions',
      'legacy',
      'limits',
      'listen',
      'lists',
      'name',
      'observability',
      'requestState',
      'routes',
      'skills',
      'tasks',
      'upstreams',
      'version',
    ]);
  });

  it('keeps the kernel, the drivers and the backend interfaces out of the Nest surface', () => {
    for (const name of [
      'McpKernel',
      'McpHttpDriver',
      'McpStdioDriver',
      'McpServerOptions',
      'SessionStore',
      'TaskStore',
    ]) {
      expect(compiled['nestjs-mcp']).not.toContain(name);
      expect(compiled['nestjs-mcp/core']).toContain(name);
    }
  });

  it('promises no transport helper, internal signal or wire constant on any entry point', () => {
    const everything = Object.values(compiled).flat();
    for (const internal of [
      'classifyMessage',
      'isPlainObject',
      'echoableId',
      'errorResponse',
      'applyServerTimeouts',
      'publicBindWarning',
      'META_PROTOCOL_VERSION',
      'TASKS_EXTENSION',
      'RedisChannel',
      'PrototypeExpressAdapter',
    ]) {
      expect(everything).not.toContain(internal);
    }
  });
});
