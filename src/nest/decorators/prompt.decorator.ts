import { SetMetadata } from '@nestjs/common';
import type { PromptRegistration } from '../../server/registry/prompt-registry.js';
import { MCP_PROMPT_METADATA } from '../mcp-metadata.constants.js';
import { McpParamtype } from '../pipeline/mcp-paramtype.enum.js';
import type { McpCompleters } from './mcp-completers.js';
import { defaultMcpParams } from './params/mcp-param-decorator.factory.js';
import type { HideWhenDeniedOption } from './tool.decorator.js';

export interface PromptOptions
  extends Omit<PromptRegistration, 'handler' | 'complete' | 'name' | 'visible'>, HideWhenDeniedOption {
  /** The prompt's name; defaults to the method name. */
  name?: string;
  complete?: McpCompleters;
}

/**
 * Declares a provider method as an MCP prompt (registered with `MCPServer.addPrompt`). Without parameter
 * decorators the method receives `(args, ctx)`.
 */
export function Prompt(options: PromptOptions = {}): MethodDecorator {
  return (target, key, descriptor) => {
    defaultMcpParams(target, key, [McpParamtype.ARGS, McpParamtype.CONTEXT]);
    SetMetadata(MCP_PROMPT_METADATA, options)(target, key, descriptor);
  };
}
