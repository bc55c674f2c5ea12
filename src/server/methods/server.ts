import type { DiscoverResult, ServerCapabilities } from '../../protocol/mcp-types.js';
import { UI_EXTENSION } from '../../protocol/extensions/apps.js';
import { TASKS_EXTENSION } from '../../protocol/extensions/tasks.js';
import { EVENTS_EXTENSION } from '../../protocol/extensions/events.js';
import { Cacheable, DISCOVER } from '../method-result.js';
import type { PromptRegistry } from '../registry/prompt-registry.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { CompletionMethods } from './completion.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import { SKILLS_EXTENSION } from '../../protocol/skills.js';
import { checkedExtensions, type DeclaredExtensions } from '../discovery/declared-extensions.js';

/** What the server says about itself: its capabilities (any era's handshake) and `server/discover`. */
export class ServerMethods {
  private readonly declared: DeclaredExtensions | undefined;

  constructor(
    private readonly tools: ToolRegistry,
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
    private readonly completion: CompletionMethods,
    private readonly skills: SkillCatalog,
    /** The declared event types (SEP-3415): how many there are decides whether the extension is declared. */
    private readonly events: { readonly size: number },
    private readonly supportedVersions: readonly string[],
    private readonly instructions: string | undefined,
    extensions: DeclaredExtensions | undefined,
  ) {
    this.declared = extensions === undefined ? undefined : checkedExtensions('extensions', extensions, false);
  }

  /** Derived from what is registered now, so a primitive added at run time shows up in the next answer. */
  capabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = {};
    if (this.tools.size > 0) capabilities.tools = { listChanged: true };
    if (this.prompts.size > 0) capabilities.prompts = { listChanged: true };
    if (this.resources.size > 0 || this.skills.enabled) capabilities.resources = { subscribe: true, listChanged: true };
    if (this.completion.available) capabilities.completions = {};
    capabilities.logging = {};
    if (this.declared) capabilities.extensions = { ...this.declared };
    // MCP Apps asks nothing of the transport, so both eras' handshakes name it.
    if (this.tools.hasUiTools) capabilities.extensions = { ...capabilities.extensions, [UI_EXTENSION]: {} };
    // Skills (SEP-2640) ask nothing of the transport either; their settings sit inline under the identifier.
    if (this.skills.enabled)
      capabilities.extensions = {
        ...capabilities.extensions,
        [SKILLS_EXTENSION]: this.skills.directoryRead ? { directoryRead: true } : {},
      };
    return capabilities;
  }

  async discover(): Promise<Cacheable<DiscoverResult>> {
    const result: DiscoverResult = {
      supportedVersions: [...this.supportedVersions],
      capabilities: this.capabilities(),
    };
    // The tasks extension (SEP-2663) is a 2026-07-28 one, so only this era's handshake names it.
    if (this.tools.hasTaskTools)
      result.capabilities.extensions = { ...result.capabilities.extensions, [TASKS_EXTENSION]: {} };
    // Events (SEP-3415) rely on per-request capabilities and server/discover: a 2026-07-28 extension too. A
    // listen stream that asks (`eventsListChanged`) is told when an event type is added or removed.
    if (this.events.size > 0)
      result.capabilities.extensions = { ...result.capabilities.extensions, [EVENTS_EXTENSION]: { listChanged: true } };
    if (this.instructions !== undefined) result.instructions = this.instructions;
    return new Cacheable(result, DISCOVER);
  }
}
