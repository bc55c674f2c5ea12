import { Inject, Injectable, Optional, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Content, MCPServer, Tool, type McpToolRegistration, type PromptRegistration } from '../../src/index.js';
import type { ContentBlock } from '../../src/index.js';
import { McpRedisConnections } from '../../src/redis/index.js';
import { RedisChannel } from '../../src/redis/backends/redis-channel.js';

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

type Dynamic = 'tool' | 'prompt';

/**
 * The two triggers `server-stateless` calls while a `subscriptions/listen` stream is open. Primitives that
 * come and go at run time are added and removed through the injected `MCPServer` (decorators declare what
 * exists from start-up); every change sends `list_changed` to the listen streams that asked for it.
 *
 * Registries are per instance, so when the fixture runs as one of several (Redis configured), the instance that
 * takes a trigger tells the others on a channel of its own, and every instance applies the same change: each
 * answers `tools/list` and `prompts/list` alike (and each change reaches the streams once per instance).
 */
@Injectable()
export class ListChangedTools implements OnModuleDestroy {
  private readonly present = new Set<Dynamic>();
  private readonly origin = randomUUID();
  private readonly fleet?: RedisChannel;

  constructor(
    private readonly server: MCPServer,
    @Optional() @Inject(McpRedisConnections) private readonly redis?: McpRedisConnections,
  ) {
    if (redis) this.fleet = new RedisChannel(redis, redis.key('fixture-changes'), (message) => this.received(message));
  }

  @Tool({
    name: 'test_trigger_tool_change',
    description: `Adds or removes the tool "${DYNAMIC_TOOL.name}", so listen streams get notifications/tools/list_changed`,
  })
  triggerToolChange(): ContentBlock {
    return this.toggle('tool');
  }

  @Tool({
    name: 'test_trigger_prompt_change',
    description: `Adds or removes the prompt "${DYNAMIC_PROMPT.name}", so listen streams get notifications/prompts/list_changed`,
  })
  triggerPromptChange(): ContentBlock {
    return this.toggle('prompt');
  }

  onModuleDestroy(): void {
    this.fleet?.close();
  }

  /** Removes the primitive when it is registered and adds it otherwise, here and on every other instance. */
  private toggle(kind: Dynamic): ContentBlock {
    const add = !this.present.has(kind);
    this.apply(kind, add);
    if (this.redis && this.fleet) {
      const change = JSON.stringify({ o: this.origin, kind, add });
      this.redis
        .run('publish a fixture change', (redis) => redis.publish(this.fleet!.name, change))
        .catch(() => undefined);
    }
    return Content.text(`${add ? 'Added' : 'Removed'} ${kind === 'tool' ? DYNAMIC_TOOL.name : DYNAMIC_PROMPT.name}`);
  }

  private received(message: unknown): void {
    const change = message as { o?: unknown; kind?: unknown; add?: unknown } | null;
    if (
      change?.o === this.origin ||
      (change?.kind !== 'tool' && change?.kind !== 'prompt') ||
      typeof change.add !== 'boolean'
    )
      return;
    this.apply(change.kind, change.add);
  }

  private apply(kind: Dynamic, add: boolean): void {
    if (add === this.present.has(kind)) return;
    if (add) this.present.add(kind);
    else this.present.delete(kind);
    if (kind === 'tool') {
      if (add) this.server.addTool(DYNAMIC_TOOL);
      else this.server.removeTool(DYNAMIC_TOOL.name);
    } else if (add) this.server.addPrompt(DYNAMIC_PROMPT);
    else this.server.removePrompt(DYNAMIC_PROMPT.name);
  }
}
