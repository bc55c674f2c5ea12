import { compiledExportNames, type EntryPoint } from '../support/export-surface.js';

/**
 * The names each entry point exports. Every one is a semver promise, so growth is deliberate: a new export fails
 * here until it is added to the list below (runtime values from the loaded module, types from the compiler).
 */
const SURFACE: Record<EntryPoint, { values: string[]; types: string[] }> = {
  'nestjs-mcp': {
    values: [
      'Args', 'Content', 'ErrorCode', 'InjectMcpServer', 'InputRequired', 'InputResponses', 'InvalidTokenError',
      'MCPServer', 'McpConfigurationError', 'McpContext', 'McpCtx', 'McpError', 'McpExecutionContext', 'McpModule',
      'McpPrincipal', 'McpRegistrationError', 'Prompt', 'RequireScopes', 'Resource', 'ResourceTemplate', 'ResourceUri',
      'TokenVerificationUnavailableError', 'Tool', 'ToolError', 'applyServerTimeouts', 'bootstrapStdio',
      'getMcpServerToken', 'insufficientScope',
    ],
    types: [
      'Annotations', 'AudioContent', 'BlobResourceContents', 'CacheHints', 'CacheScope', 'CallToolResult',
      'ClientCapabilities', 'CompleteResult', 'Completer', 'CompletionValues', 'ContentBlock', 'CreateMessageRequest',
      'CreateMessageResult', 'DiscoverResult', 'ElicitRequest', 'ElicitResult', 'EmbeddedResource', 'GetPromptResult',
      'HostOriginOptions', 'Icon', 'ImageContent', 'Implementation', 'InferSchemaInput', 'InputCapability',
      'InputRequest', 'InputRequests', 'InputRequiredOptions', 'InputResponse', 'IntrospectionVerifierOptions',
      'JsonSchema', 'JwtVerifierOptions', 'LOG_LEVELS', 'LegacyOptions', 'ListPromptsResult',
      'ListResourceTemplatesResult', 'ListResourcesResult', 'ListRootsRequest', 'ListRootsResult', 'ListToolsResult',
      'LoggingLevel', 'McpArgumentsHost', 'McpAuthOptions', 'McpCall', 'McpCallEvent', 'McpCallInterceptor',
      'McpCallOutcome', 'McpCompleters', 'McpContextType', 'McpCorsOptions', 'McpEvent', 'McpEventBus',
      'McpModuleExtras', 'McpModuleOptions', 'McpObservabilityOptions', 'McpResult', 'McpSchema', 'McpServerOptions',
      'McpStdioApplication', 'McpStdioBootstrapOptions', 'McpToolRegistration', 'MetaObject', 'OpenTelemetryOptions',
      'ProgressUpdate', 'PromptArgument', 'PromptDefinition', 'PromptHandler', 'PromptMessage', 'PromptOptions',
      'PromptRegistration', 'PromptValue', 'ReadResourceResult', 'RegistrationHandle', 'RequestStateStore',
      'ResourceContents', 'ResourceDefinition', 'ResourceHandler', 'ResourceLink', 'ResourceOptions',
      'ResourceReadValue', 'ResourceRegistration', 'ResourceTemplateDefinition', 'ResourceTemplateOptions',
      'ResourceTemplateRegistration', 'SampleOptions', 'ServerCapabilities', 'ServerTimeouts',
      'StandardJsonSchemaSource', 'StoredTask', 'SubscriptionsListenResult', 'TaskOptions', 'TaskStatus', 'TaskStore',
      'TaskSupport', 'TextContent', 'TextResourceContents', 'TokenVerifier', 'ToolAnnotations', 'ToolDefinition',
      'ToolHandler', 'ToolOptions', 'ToolRegistrationOptions', 'ToolVisibility', 'ZodSchemaSource',
    ],
  },
  'nestjs-mcp/core': {
    values: [
      'Content', 'ErrorCode', 'InMemoryRequestStateStore', 'InMemoryTaskStore', 'InProcessEventBus',
      'InProcessReplyRouter', 'InputRequired', 'InvalidTokenError', 'LATEST_PROTOCOL_VERSION',
      'LEGACY_PROTOCOL_VERSIONS', 'LOG_LEVELS', 'LOOPBACK_HOSTS', 'META_CLIENT_CAPABILITIES', 'META_CLIENT_INFO',
      'META_LOG_LEVEL', 'META_PROTOCOL_VERSION', 'META_SERVER_INFO', 'META_SUBSCRIPTION_ID', 'McpContext', 'McpError',
      'McpHttpDriver', 'McpKernel', 'McpPrincipal', 'McpStdioDriver', 'OAuthResourceServer',
      'PROTECTED_RESOURCE_METADATA_PATH', 'ReplyCancelled', 'ReplyTimeout', 'SUPPORTED_PROTOCOL_VERSIONS',
      'TASKS_EXTENSION', 'TokenVerificationUnavailableError', 'ToolError', 'applyServerTimeouts', 'bearerChallenge',
      'callEventInterceptor', 'classifyEra', 'classifyHttpRequest', 'classifyMessage', 'classifyStdioRequest',
      'convertSchema', 'echoableId', 'errorResponse', 'httpStatusForErrorCode', 'inputRequired', 'insufficientScope',
      'isLoopbackHost', 'isPlainObject', 'isTerminalStatus', 'isValidRequestId', 'loadOpenTelemetryInterceptor',
      'loadSchemaConverters', 'publicBindWarning', 'replyAnswer', 'scopesOf', 'successResponse', 'toJsonSchema',
    ],
    types: [
      'Annotations', 'AudioContent', 'BearerChallenge', 'BlobResourceContents', 'CacheHints', 'CacheScope',
      'CallToolResult', 'ClientCapabilities', 'ClientReply', 'CompleteResult', 'CompletionValues', 'ContentBlock',
      'CreateMessageRequest', 'CreateMessageResult', 'DetailedTask', 'DiscoverResult', 'DtoClass', 'ElicitRequest',
      'ElicitResult', 'EmbeddedResource', 'EraVerdict', 'ErrorCodeValue', 'GetPromptResult', 'HandlerErrorLogger',
      'HandlerErrorReport', 'HostOriginOptions', 'HttpAuthentication', 'HttpRejection', 'Icon', 'ImageContent',
      'Implementation', 'InputCapability', 'InputRequest', 'InputRequests', 'InputRequiredOptions', 'InputResponse',
      'InputResponses', 'IntrospectionVerifierOptions', 'JsonRpcErrorObject', 'JsonRpcErrorResponse',
      'JsonRpcNotification', 'JsonRpcRequest', 'JsonRpcResponse', 'JsonRpcSuccessResponse', 'JsonSchema',
      'JwtVerifierOptions', 'LegacyLeg', 'LegacyOptions', 'LineSink', 'ListPromptsResult',
      'ListResourceTemplatesResult', 'ListResourcesResult', 'ListRootsRequest', 'ListRootsResult', 'ListToolsResult',
      'LoggingLevel', 'McpAuthOptions', 'McpCall', 'McpCallEvent', 'McpCallInterceptor', 'McpCallOutcome',
      'McpCorsOptions', 'McpEvent', 'McpEventBus', 'McpHttpAuthenticator', 'McpHttpOptions', 'McpLogger',
      'McpRequestContext', 'McpResult', 'McpServerOptions', 'McpStdioOptions', 'MessageVerdict', 'MetaObject',
      'OpenTelemetryOptions', 'PendingReply', 'PendingRequest', 'PreparedBody', 'ProgressUpdate', 'PromptArgument',
      'PromptDefinition', 'PromptMessage', 'ProtectedResourceMetadata', 'ReadResourceResult', 'ReplyDelivery',
      'ReplyOutcome', 'ReplyRouter', 'RequestId', 'RequestStateStore', 'ResourceContents', 'ResourceDefinition',
      'ResourceLink', 'ResourceTemplateDefinition', 'SampleOptions', 'ServerCapabilities', 'ServerTimeouts',
      'SubscriptionsListenResult', 'TaskCreateOutcome', 'TaskError', 'TaskLimits', 'TaskSignal', 'TextContent',
      'TextResourceContents', 'TokenVerifier', 'ToolAnnotations', 'ToolDefinition', 'ToolRegistration',
    ],
  },
  'nestjs-mcp/testing': {
    values: [
      'McpTestClient', 'createMcpTestClient', 'createToolContext', 'mcpHeaders', 'mcpMessage', 'sseMessages',
    ],
    types: [
      'InputAnswers', 'McpMessageOptions', 'McpRequestOptions', 'McpTestClientOptions', 'McpTestExchange',
      'McpTestTarget', 'ToolContextHarness', 'ToolContextOptions',
    ],
  },
  'nestjs-mcp/express': {
    values: [
      'PrototypeExpressAdapter',
    ],
    types: [

    ],
  },
};

const load: Record<EntryPoint, () => Promise<Record<string, unknown>>> = {
  'nestjs-mcp': () => import('../../src/index.js'),
  'nestjs-mcp/core': () => import('../../src/core/index.js'),
  'nestjs-mcp/testing': () => import('../../src/testing/index.js'),
  'nestjs-mcp/express': () => import('../../src/express/index.js'),
};

describe('The exported surface of each entry point', () => {
  const compiled = compiledExportNames();

  describe.each(Object.keys(SURFACE) as EntryPoint[])('%s', (entry) => {
    it('exports exactly these runtime values', async () => {
      expect(Object.keys(await load[entry]()).sort()).toEqual(SURFACE[entry].values);
    });

    it('exports exactly these names to the compiler (the values above and these types)', () => {
      expect(compiled[entry]).toEqual([...SURFACE[entry].values, ...SURFACE[entry].types].sort());
    });
  });

  it('keeps the kernel, the drivers and the protocol helpers out of the Nest surface', () => {
    for (const internal of ['McpKernel', 'McpHttpDriver', 'classifyMessage', 'isPlainObject', 'echoableId', 'errorResponse', 'inputRequired']) {
      expect(SURFACE['nestjs-mcp'].values).not.toContain(internal);
      expect(SURFACE['nestjs-mcp/core'].values).toContain(internal);
    }
  });
});
