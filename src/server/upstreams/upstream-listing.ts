import { ErrorCode } from '../../protocol/error-codes.js';
import type {
  JsonSchema,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../../protocol/mcp-types.js';
import type { ListKind } from './upstream-connection.js';
import type { UpstreamClient } from './upstream-client.js';

/** A list is asked because it changed (or its TTL ran out): never answered from the client's cache. */
const FRESH = { cacheMode: 'refresh' } as const;

interface ItemBase {
  /** The name or URI clients see, and what kind of primitive it is, for a clash's message. */
  key: string;
  what: 'tool' | 'prompt' | 'resource' | 'resource template';
  upstreamName: string;
  digest: string;
}

/** One primitive of an upstream, as it is mounted: the definition clients see (renamed), passed through. */
export type MountedItem = ItemBase &
  (
    | { kind: 'tools'; tool: ToolDefinition & { inputSchema: JsonSchema } }
    | { kind: 'prompts'; prompt: PromptDefinition }
    | { kind: 'resources'; resource: ResourceDefinition }
    | { kind: 'templates'; template: ResourceTemplateDefinition }
  );

export interface UpstreamListing {
  /** The kinds asked (each kind's items not in `items` are gone from the upstream). */
  kinds: Set<string>;
  /** By `<kind>:<key>`. */
  items: Map<string, MountedItem>;
}

/** The name a tool or prompt is mounted under. */
export function mountedName(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}_${name}`;
}

/** What the upstream offers now, of `kind` (or everything), as the server is to publish it. */
export async function listingOf(
  client: UpstreamClient,
  kind: ListKind | 'all',
  prefix: string,
): Promise<UpstreamListing> {
  const offered = client.getServerCapabilities() ?? {};
  const asked = (k: ListKind) => (kind === 'all' || kind === k) && offered[k] !== undefined;
  const listing: UpstreamListing = { kinds: new Set(), items: new Map() };
  const add = (item: MountedItem) => listing.items.set(`${item.kind}:${item.key}`, item);
  if (asked('tools')) {
    listing.kinds.add('tools');
    for (const tool of (await client.listTools(undefined, FRESH)).tools) {
      const name = mountedName(prefix, tool.name);
      add({
        kind: 'tools',
        key: name,
        what: 'tool',
        upstreamName: tool.name,
        digest: digest(tool),
        tool: { ...tool, name },
      });
    }
  }
  if (asked('prompts')) {
    listing.kinds.add('prompts');
    for (const prompt of (await client.listPrompts(undefined, FRESH)).prompts) {
      const name = mountedName(prefix, prompt.name);
      add({
        kind: 'prompts',
        key: name,
        what: 'prompt',
        upstreamName: prompt.name,
        digest: digest(prompt),
        prompt: { ...prompt, name },
      });
    }
  }
  if (asked('resources')) {
    listing.kinds.add('resources').add('templates');
    for (const resource of (await client.listResources(undefined, FRESH)).resources) {
      add({
        kind: 'resources',
        key: resource.uri,
        what: 'resource',
        upstreamName: resource.uri,
        digest: digest(resource),
        resource,
      });
    }
    // A server may offer resources without templates, and answer their list as a method it does not have.
    const templates = await client.listResourceTemplates(undefined, FRESH).catch((error: { code?: unknown }) => {
      if (error.code === ErrorCode.MethodNotFound) return { resourceTemplates: [] };
      throw error;
    });
    for (const template of templates.resourceTemplates) {
      const key = template.uriTemplate;
      add({ kind: 'templates', key, what: 'resource template', upstreamName: key, digest: digest(template), template });
    }
  }
  return listing;
}

function digest(definition: object): string {
  return JSON.stringify(definition);
}
