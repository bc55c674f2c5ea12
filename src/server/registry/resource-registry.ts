import type {
  CacheHints,
  ReadResourceResult,
  ResourceContents,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from '../../protocol/mcp-types.js';
import type { ListChangeListener } from '../events/event-bus.js';
import type { InputRequired } from '../input-required.js';
import type { McpContext } from '../mcp-context.js';
import { checkCompleters, completerOf, someDeclareCompleters } from './registry-rules.js';
import { PagedList } from './paged-list.js';
import { checkRequiredScopes } from '../access/required-scopes.js';
import type { Visible, VisibilityRule } from './visibility.js';
import { stripUndefined } from './tool-registry.js';
import { UriTemplate } from '../uri/uri-template.js';
import { escapesTemplate, looseUriKey, normalizeUri } from '../uri/uri-normalization.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import {
  DUPLICATE_RESOURCE,
  DUPLICATE_RESOURCE_TEMPLATE,
  HANDLER_NOT_A_FUNCTION,
  NAME_REQUIRED,
  RESOURCE_URI_NOT_ABSOLUTE,
} from '../errors/configuration-messages.js';

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
  /** Decides per request whether the caller sees the resource; hidden, a read answers as for an unknown URI. */
  visible?: Visible;
}

export interface ResourceTemplateRegistration extends ResourceTemplateDefinition {
  handler: ResourceHandler;
  complete?: Record<string, Completer>;
  cache?: Partial<CacheHints>;
  /** OAuth scopes a caller needs to list, read or complete this template. */
  requiredScopes?: string[];
  /** Decides per request whether the caller sees the template (lists, reads, completion). */
  visible?: Visible;
}

export interface ResourceMatch {
  handler: ResourceHandler;
  variables: Record<string, string>;
  mimeType?: string;
  cache?: Partial<CacheHints>;
  requiredScopes?: readonly string[];
  visible?: Visible;
}

interface TemplateEntry {
  definition: ResourceTemplateDefinition;
  matcher: UriTemplate;
  registration: ResourceTemplateRegistration;
}

/**
 * Static resources by URI and templates in registration order; a read tries the exact URI first. URIs are
 * compared in RFC 3986 normal form (`normalizeUri`), so `file:///%70ayroll.csv` is `file:///payroll.csv` and
 * never reaches a template instead. A template match needs, besides the template's scopes, the scopes of every
 * static resource the URI could also denote once fully decoded (`looseUriKey`), and a variable that decodes to a
 * `.` or `..` segment or an absolute path matches nothing: what a template handler reads is then never a scoped resource it was not
 * meant to reach.
 */
export class ResourceRegistry {
  /** By normal form of the URI. */
  private readonly resources = new Map<string, ResourceRegistration>();
  /** The scoped static resources by loose key. */
  private readonly scopedByLooseKey = new Map<string, ResourceRegistration[]>();
  private readonly templates = new Map<string, TemplateEntry>();
  /** Resources read by URI but left out of `resources/list` (a skill's files besides its `SKILL.md`). */
  private readonly unlisted = new Set<string>();
  readonly listing: PagedList<ResourceDefinition>;
  readonly templateListing: PagedList<ResourceTemplateDefinition>;

  constructor(
    pageSize: number,
    private readonly onChange: ListChangeListener,
  ) {
    this.listing = new PagedList(
      () =>
        [...this.resources]
          .filter(([key]) => this.unlisted.size === 0 || !this.unlisted.has(key))
          .map(([, registration]) => definitionOf(registration)),
      pageSize,
      'resources',
      (d) => this.resources.get(normalizeUri(d.uri)),
    );
    this.templateListing = new PagedList(
      () => [...this.templates.values()].map((t) => t.definition),
      pageSize,
      'templates',
      (d) => this.templates.get(d.uriTemplate)?.registration,
    );
  }

  get size(): number {
    return this.resources.size + this.templates.size;
  }

  get hasCompleters(): boolean {
    return someDeclareCompleters([...this.templates.values()].map((t) => t.registration));
  }

  /** The published definition of the static resource at `uri`, if one is registered. */
  definition(uri: string): ResourceDefinition | undefined {
    const entry = this.resources.get(normalizeUri(uri));
    return entry && definitionOf(entry);
  }

  /** `listed: false` serves the resource to reads without showing it in `resources/list`. */
  addResource(registration: ResourceRegistration, listed = true): void {
    const { uri, name } = registration;
    if (typeof uri !== 'string' || !isAbsoluteUri(uri)) throw new McpConfigurationError(RESOURCE_URI_NOT_ABSOLUTE(uri));
    if (typeof name !== 'string' || name.length === 0)
      throw new McpConfigurationError(NAME_REQUIRED(`Resource "${uri}"`));
    if (typeof registration.handler !== 'function')
      throw new McpConfigurationError(HANDLER_NOT_A_FUNCTION(`Resource "${uri}"`));
    const key = normalizeUri(uri);
    if (this.resources.has(key)) throw new McpConfigurationError(DUPLICATE_RESOURCE(uri, this.resources.get(key)!.uri));
    const entry = {
      ...registration,
      requiredScopes: checkRequiredScopes(`Resource "${uri}"`, registration.requiredScopes),
    };
    this.resources.set(key, entry);
    if (!listed) this.unlisted.add(key);
    if (entry.requiredScopes) {
      const loose = looseUriKey(uri);
      this.scopedByLooseKey.set(loose, [...(this.scopedByLooseKey.get(loose) ?? []), entry]);
    }
    this.changed(entry.requiredScopes);
  }

  addTemplate(registration: ResourceTemplateRegistration): void {
    const { uriTemplate, name } = registration;
    if (typeof name !== 'string' || name.length === 0)
      throw new McpConfigurationError(NAME_REQUIRED(`Resource template "${uriTemplate}"`));
    if (typeof registration.handler !== 'function')
      throw new McpConfigurationError(HANDLER_NOT_A_FUNCTION(`Resource template "${uriTemplate}"`));
    if (this.templates.has(uriTemplate)) throw new McpConfigurationError(DUPLICATE_RESOURCE_TEMPLATE(uriTemplate));
    const matcher = new UriTemplate(uriTemplate);
    checkCompleters(`Resource template "${uriTemplate}"`, registration.complete, matcher.variables, 'variable');
    const requiredScopes = checkRequiredScopes(`Resource template "${uriTemplate}"`, registration.requiredScopes);
    const { handler: _h, complete: _c, cache: _k, requiredScopes: _s, visible: _v, ...definition } = registration;
    this.templates.set(uriTemplate, {
      definition: stripUndefined(definition),
      matcher,
      registration: { ...registration, requiredScopes },
    });
    this.changed(requiredScopes);
  }

  removeResource(uri: string): boolean {
    const key = normalizeUri(uri);
    const entry = this.resources.get(key);
    if (!entry) return false;
    this.resources.delete(key);
    this.unlisted.delete(key);
    if (entry.requiredScopes) {
      const loose = looseUriKey(uri);
      const rest = this.scopedByLooseKey.get(loose)!.filter((e) => e !== entry);
      if (rest.length > 0) this.scopedByLooseKey.set(loose, rest);
      else this.scopedByLooseKey.delete(loose);
    }
    this.changed(entry.requiredScopes);
    return true;
  }

  removeTemplate(uriTemplate: string): boolean {
    const entry = this.templates.get(uriTemplate);
    if (!entry) return false;
    this.templates.delete(uriTemplate);
    this.changed(entry.registration.requiredScopes);
    return true;
  }

  match(uri: string): ResourceMatch | undefined {
    const normal = normalizeUri(uri);
    const resource = this.resources.get(normal);
    if (resource) {
      const { handler, mimeType, cache, requiredScopes, visible } = resource;
      return { handler, variables: {}, mimeType, cache, requiredScopes, visible };
    }
    const asGiven = normalizeUri(uri, false);
    for (const { matcher, registration } of this.templates.values()) {
      const variables = matcher.match(asGiven);
      if (!variables) continue;
      if (Object.values(variables).some(escapesTemplate)) return undefined;
      const { handler, mimeType, cache, visible } = registration;
      return {
        handler,
        variables,
        mimeType,
        cache,
        requiredScopes: this.templateReadScopes(normal, registration.requiredScopes),
        visible,
      };
    }
    return undefined;
  }

  /** The template's scopes plus those of every scoped static resource the URI may also denote. */
  private templateReadScopes(uri: string, own: readonly string[] | undefined): readonly string[] | undefined {
    if (this.scopedByLooseKey.size === 0) return own;
    const shadowed = this.scopedByLooseKey.get(looseUriKey(uri));
    if (!shadowed) return own;
    return [...new Set([...(own ?? []), ...shadowed.flatMap((entry) => entry.requiredScopes!)])];
  }

  completer(uriTemplate: string, variable: string): Completer | null | undefined {
    const entry = this.templates.get(uriTemplate);
    return entry && completerOf(entry.registration.complete, variable);
  }

  /** Who sees a template, for completion. */
  templateRule(uriTemplate: string): VisibilityRule | undefined {
    return this.templates.get(uriTemplate)?.registration;
  }

  /** `requiredScopes`: who can see what changed (no scopes: everybody). */
  private changed(requiredScopes: readonly string[] | undefined): void {
    this.listing.invalidate();
    this.templateListing.invalidate();
    this.onChange(requiredScopes);
  }
}

function definitionOf(registration: ResourceRegistration): ResourceDefinition {
  const { handler: _h, cache: _c, requiredScopes: _s, visible: _v, ...definition } = registration;
  return stripUndefined(definition);
}

function isAbsoluteUri(uri: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri);
}
