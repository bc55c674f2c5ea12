import { Inject, Injectable } from '@nestjs/common';
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { McpCallInterceptor } from '../server/mcp-call.js';
import type { McpKernel } from '../server/mcp-kernel.js';
import type { McpRequestContext } from '../server/mcp-request-context.js';
import type { PromptRegistration } from '../server/prompt.registry.js';
import type { ResourceRegistration, ResourceTemplateRegistration } from '../server/resource.registry.js';
import type { ToolHandler, ToolRegistration, ToolRegistrationOptions } from '../server/tool.registry.js';
import { MCP_KERNEL } from './mcp.constants.js';

/**
 * The injectable MCP server. Inject it to register tools, resources and prompts at run time, or to call
 * `handleRequest` directly (tests, health checks). It fronts this module's kernel; what only a transport
 * should do (dispatch past the version rung, end every listen stream) stays off it.
 */
@Injectable()
export class MCPServer {
  constructor(@Inject(MCP_KERNEL) private readonly kernel: McpKernel) {}

  /** Calls running now and listen streams open now, for health checks and load tests. */
  get load(): { calls: number; subscriptions: number } {
    return this.kernel.load;
  }

  /** Registers a tool from its name, description, JSON Schema `inputSchema` and handler, plus any other option (`taskSupport`, ...). */
  registerTool(name: string, description: string, schema: object, handler: ToolHandler, options?: ToolRegistrationOptions): void {
    this.kernel.registerTool(name, description, schema, handler, options);
  }

  /** Registers a tool with every option the spec allows (title, outputSchema, annotations, icons, _meta). */
  addTool(registration: ToolRegistration): void {
    this.kernel.addTool(registration);
  }

  removeTool(name: string): boolean {
    return this.kernel.removeTool(name);
  }

  hasTool(name: string): boolean {
    return this.kernel.hasTool(name);
  }

  addResource(registration: ResourceRegistration): void {
    this.kernel.addResource(registration);
  }

  addResourceTemplate(registration: ResourceTemplateRegistration): void {
    this.kernel.addResourceTemplate(registration);
  }

  removeResource(uri: string): boolean {
    return this.kernel.removeResource(uri);
  }

  removeResourceTemplate(uriTemplate: string): boolean {
    return this.kernel.removeResourceTemplate(uriTemplate);
  }

  addPrompt(registration: PromptRegistration): void {
    this.kernel.addPrompt(registration);
  }

  removePrompt(name: string): boolean {
    return this.kernel.removePrompt(name);
  }

  /** Tells listen streams that subscribed to this resource that it changed. */
  notifyResourceUpdated(uri: string): void {
    this.kernel.notifyResourceUpdated(uri);
  }

  /** Processes one JSON-RPC message in-process, through every rung a transport's request goes through. */
  handleRequest(message: unknown, context?: McpRequestContext): Promise<JsonRpcResponse | undefined> {
    return this.kernel.handleRequest(message, context);
  }

  /** Adds an interceptor around every call (logging, tracing, metrics); each one added wraps those added before. */
  intercept(interceptor: McpCallInterceptor): void {
    this.kernel.intercept(interceptor);
  }
}
