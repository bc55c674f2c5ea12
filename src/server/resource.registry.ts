import type {
  CacheHints,
  ReadResourceResult,
  ResourceContents,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from '../protocol/mcp-types.js';
import type { InputRequired } from './input-required.js';
import type { McpContext } from './mcp-context.js';
import { checkCompleters, someDeclareCompleters } from './registry-rules.js';
import { PagedList } from './paged-list.js';
import { checkRequiredScopes } from './required-scopes.js';
import { stripUndefined } from './tool.registry.js';
import { UriTemplate } from './uri-template.js';

/** What a resource handler may return: text, bytes, contents, or a full read result. */
export type ResourceReadValue = string | Uint8Array | ResourceContents | ResourceContents[] | ReadResourceResult;

/** A handler may return (or throw) `InputRequired` to ask the client for input first. */
export type ResourceHandler = (
  uri: string,
  variables: Record<string, string>,
  context: McpContext,
) => ResourceReadValue | InputRequired | Promise<ResourceReadValue | InputRequired>;

/** Suggests values for one variable of a template, given what the user typed so far. */
export type Completer = (value: string, context: { arguments: Record<string, string> }) => string[] | Promise<string[]>;

export interface ResourceRegistration extends ResourceDefinition {
  handler: ResourceHandler;
  cache?: Partial<CacheHints>;
  /** OAuth scopes a caller needs: without all of them the resource is hidden from lists and a read gets 403. */
  requiredScopes?: string[];
}

export interface ResourceTemplateRegistration extends ResourceTemplateDefinition {
  handler: ResourceHandler;
  complete?: Record<string, Completer>;
  cache?: Partial<CacheHints>;
  /** OAuth scopes a caller needs to list, read or complete this template. */
  requiredScopes?: string[];
}

export interface ResourceMatch {
  handler: ResourceHandler;
  variables: Record<string, string>;
  mimeType?: string;
  cache?: Partial<CacheHints>;
  requiredScopes?: readonly string[];
}

interface TemplateEntry {
  definition: ResourceTemplateDefinition;
  matcher: UriTemplate;
  registration: ResourceTemplateRegistration;
}

/** Static resources by URI and templates in registration order; a read tries the exact URI first. */
export class ResourceRegistry {
  private readonly resources = new Map<string, ResourceRegistration>();
  private readonly templates = new Map<string, TemplateEntry>();
  readonly listing: PagedList<ResourceDefinition>;
  readonly templateListing: PagedList<ResourceTemplateDefinition>;

  constructor(pageSize: number, private readonly onChange: () => void) {
    this.listing = new PagedList(
      () => [...this.resources.values()].map(definitionOf),
      pageSize,
      'resources',
      (d) => this.resources.get(d.uri)?.requiredScopes,
    );
    this.templateListing = new PagedList(
      () => [...this.templates.values()].map((t) => t.definition),
      pageSize,
      'templates',
      (d) => this.templateScopes(d.uriTemplate),
    );
  }

  get size(): number {
    return this.resources.size + this.templates.size;
  }

  get hasCompleters(): boolean {
    return someDeclareCompleters([...this.templates.values()].map((t) => t.registration));
  }

  addResource(registration: ResourceRegistration): void {
    const { uri, name } = registration;
    if (typeof uri !== 'string' || !isAbsoluteUri(uri)) throw new Error(`Resource ${JSON.stringify(uri)}: uri must be an absolute URI`);
    if (typeof name !== 'string' || name.length === 0) throw new Error(`Resource "${uri}": name is required`);
    if (typeof registration.handler !== 'function') throw new Error(`Resource "${uri}": handler must be a function`);
    if (this.resources.has(uri)) throw new Error(`Resource "${uri}" is already registered`);
    this.resources.set(uri, { ...registration, requiredScopes: checkRequiredScopes(`Resource "${uri}"`, registration.requiredScopes) });
    this.changed();
  }

  addTemplate(registration: ResourceTemplateRegistration): void {
    const { uriTemplate, name } = registration;
    if (typeof name !== 'string' || name.length === 0) throw new Error(`Resource template "${uriTemplate}": name is required`);
    if (typeof registration.handler !== 'function') throw new Error(`Resource template "${uriTemplate}": handler must be a function`);
    if (this.templates.has(uriTemplate)) throw new Error(`Resource template "${uriTemplate}" is already registered`);
    const matcher = new UriTemplate(uriTemplate);
    checkCompleters(`Resource template "${uriTemplate}"`, registration.complete, matcher.variables, 'variable');
    const requiredScopes = checkRequiredScopes(`Resource template "${uriTemplate}"`, registration.requiredScopes);
    const { handler: _h, complete: _c, cache: _k, requiredScopes: _s, ...definition } = registration;
    this.templates.set(uriTemplate, { definition: stripUndefined(definition), matcher, registration: { ...registration, requiredScopes } });
    this.changed();
  }

  removeResource(uri: string): boolean {
    const removed = this.resources.delete(uri);
    if (removed) this.changed();
    return removed;
  }

  removeTemplate(uriTemplate: string): boolean {
    const removed = this.templates.delete(uriTemplate);
    if (removed) this.changed();
    return removed;
  }

  match(uri: string): ResourceMatch | undefined {
    const resource = this.resources.get(uri);
    if (resource) {
      return { handler: resource.handler, variables: {}, mimeType: resource.mimeType, cache: resource.cache, requiredScopes: resource.requiredScopes };
    }
    for (const { matcher, registration } of this.templates.values()) {
      const variables = matcher.match(uri);
      if (variables) {
        const { handler, mimeType, cache, requiredScopes } = registration;
        return { handler, variables, mimeType, cache, requiredScopes };
      }
    }
    return undefined;
  }

  completer(uriTemplate: string, variable: string): Completer | null | undefined {
    const entry = this.templates.get(uriTemplate);
    if (!entry) return undefined;
    // Own keys only: a variable named "constructor" or "toString" must not find Object.prototype's methods.
    const completers = entry.registration.complete;
    return completers && Object.hasOwn(completers, variable) ? completers[variable] : null;
  }

  /** The scopes a template requires, for listing and completion. */
  templateScopes(uriTemplate: string): readonly string[] | undefined {
    return this.templates.get(uriTemplate)?.registration.requiredScopes;
  }

  private changed(): void {
    this.listing.invalidate();
    this.templateListing.invalidate();
    this.onChange();
  }
}

function definitionOf(registration: ResourceRegistration): ResourceDefinition {
  const { handler: _h, cache: _c, requiredScopes: _s, ...definition } = registration;
  return stripUndefined(definition);
}

function isAbsoluteUri(uri: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri);
}
