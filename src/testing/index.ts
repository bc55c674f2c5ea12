// `nestjs-mcp/testing`: helpers for testing an app's MCP tools, resources and prompts.
export {
  createMcpTestClient,
  McpTestClient,
  sseMessages,
  type InputAnswers,
  type McpRequestOptions,
  type McpTestClientOptions,
  type McpTestExchange,
  type McpTestResponse,
  type McpTestTarget,
} from './mcp-test-client.js';
export { createToolContext, type ToolContextHarness, type ToolContextOptions } from './tool-context.js';
export { mcpHeaders, mcpMessage, type McpMessageOptions } from './mcp-message.js';
export {
  renderToolUi,
  type RenderToolUiOptions,
  type RenderedToolUi,
  type UiHostConnection,
} from './render-tool-ui.js';
export { uiContentSecurityPolicy } from '../server/apps/ui-content-security-policy.js';
export {
  runConformance,
  type ConformanceCheck,
  type ConformanceEra,
  type ConformanceResult,
  type RunConformanceOptions,
} from './run-conformance.js';
