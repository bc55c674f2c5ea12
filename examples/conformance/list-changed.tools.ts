import { Injectable } from '@nestjs/common';
import {
  Content,
  MCPServer,
  Tool,
  type ContentBlock,
  type McpToolRegistration,
  type PromptRegistration,
} from '../../src/index.js';

/** The tool `test_trigger_tool_change` adds and removes. */
const DYNAMIC_TOOL: McpToolRegistration = {
  name: 'test_dynamic_tool',
  description: 'A tool that comes and goes with test_trigger_tool_change',
  inputSchema: { type: 'object', additionalProperties: false },
  handler: () => Content.text('dynamic'),
};

/** The prompt `test_trigger_prompt_change` adds and removes. */
const DYNAMIC_PROMPT: PromptRegistration = {
  name: 'test_dynamic_prompt',
  description: 'A prompt that comes and goes with test_trigger_prompt_change',
  handler: () => 'This prompt was added by test_trigger_prompt_change.',
};

/**
 * The two triggers `server-stateless` calls while a `subscriptions/listen` stream is open. Primitives that
 * come and go at run time are added and removed through the injected `MCPServer` (decorators declare what
 * exists from start-up); every change sends `list_changed` to the listen streams that asked for it.
 */
@Injectable()
export class ListChangedTools {
  constructor(private readonly server: MCPServer) {}

  @Tool({
    name: 'test_trigger_tool_change',
    description: `Adds or removes the tool "${DYNAMIC_TOOL.name}", so listen streams get notifications/tools/list_changed`,
  })
  triggerToolChange(): ContentBlock {
    return toggle(
      DYNAMIC_TOOL.name,
      () => this.server.removeTool(DYNAMIC_TOOL.name),
      () => this.server.addTool(DYNAMIC_TOOL),
    );
  }

  @Tool({
    name: 'test_trigger_prompt_change',
    description: `Adds or removes the prompt "${DYNAMIC_PROMPT.name}", so listen streams get notifications/prompts/list_changed`,
  })
  triggerPromptChange(): ContentBlock {
    return toggle(
      DYNAMIC_PROMPT.name,
      () => this.server.removePrompt(DYNAMIC_PROMPT.name),
      () => this.server.addPrompt(DYNAMIC_PROMPT),
    );
  }
}

/** Removes the primitive when it is registered and adds it otherwise, and says which it did. */
function toggle(name: string, remove: () => boolean, add: () => void): ContentBlock {
  if (remove()) return Content.text(`Removed ${name}`);
  add();
  return Content.text(`Added ${name}`);
}
