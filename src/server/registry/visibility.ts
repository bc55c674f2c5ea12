import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import type { McpContext } from '../mcp-context.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import type { ScopeGate } from '../access/scope-gate.js';

/** Decides per request whether the caller sees a primitive (`hideWhenDenied`: its guards would deny the caller). */
export type Visible = (context: McpContext) => boolean | Promise<boolean>;

/** Who sees a primitive: the OAuth scopes it needs, and a decision per request. */
export interface VisibilityRule {
  readonly requiredScopes?: readonly string[];
  readonly visible?: Visible;
}

/** A registry's pages as the rule reads them (`PagedList`): already cut to the caller's scopes. */
export interface RuledListing<T> {
  page(cursor: unknown, granted: ReadonlySet<string>): { readonly items: readonly T[]; readonly nextCursor?: string };
  /** Some item needs scopes. */
  readonly scoped: boolean;
  /** Some item decides per request who sees it. */
  readonly conditional: boolean;
  ruleOf(item: T): VisibilityRule | undefined;
}

/** One page of a list as one caller sees it; `personal` when what it holds depends on who asks. */
export interface VisiblePage<T> {
  /** The listing's own (pre-serialized) page when nothing is left out. */
  items: readonly T[];
  nextCursor?: string;
  personal: boolean;
}

/** The context of a request that carries no request state: who is asking, nothing more. */
export type AskerContext = (request: JsonRpcRequest, transport: McpRequestContext) => McpContext | Promise<McpContext>;

/**
 * The one rule of who sees what, for every primitive (tool, prompt, resource, template, skill): a primitive
 * whose scopes the caller lacks, or whose `visible` says no for this request, is left out of every list that
 * could name it, and a request that names it is answered as for one the server does not have (missing scopes:
 * the 403 step-up challenge, unless `hideForbidden`). A list or an answer that depends on the caller is private
 * to it, so no shared cache hands it to another caller.
 */
export class Visibility {
  constructor(
    /** Scopes alone, synchronously: what `tools/call` asks first, before a tool's own decision. */
    readonly gate: ScopeGate,
    private readonly askerContext: AskerContext,
  ) {}

  /** The page the request's cursor names, minus what this caller does not see. */
  async page<T>(
    listing: RuledListing<T>,
    request: JsonRpcRequest,
    transport: McpRequestContext,
  ): Promise<VisiblePage<T>> {
    const { items, nextCursor } = listing.page(request.params?.cursor, new Set(transport.scopes));
    const conditional = listing.conditional;
    const page: VisiblePage<T> = { items, personal: conditional || listing.scoped };
    if (nextCursor !== undefined) page.nextCursor = nextCursor;
    if (!conditional) return page;
    const context = await this.askerContext(request, transport);
    const shown = await Promise.all(items.map((item) => sees(listing.ruleOf(item), context)));
    page.items = items.filter((_, i) => shown[i]);
    return page;
  }

  /**
   * Whether the caller may use the primitive `rule` guards: false means answer as unknown; a lack of scopes
   * throws the 403 challenge instead unless the gate hides.
   */
  async admits(
    rule: VisibilityRule,
    kind: string,
    name: string,
    request: JsonRpcRequest,
    transport: McpRequestContext,
  ): Promise<boolean> {
    if (!this.gate.allows(rule.requiredScopes, transport.scopes, kind, name)) return false;
    return this.shows(rule, request, transport);
  }

  /** What the primitive's `visible` decides for this request (true when it decides nothing); scopes aside. */
  async shows(rule: VisibilityRule, request: JsonRpcRequest, transport: McpRequestContext): Promise<boolean> {
    return !rule.visible || sees(rule, await this.askerContext(request, transport));
  }
}

/** Whether an answer about the primitive depends on who asks (then it is cached privately). */
export function isPersonal(rule: VisibilityRule): boolean {
  return rule.requiredScopes !== undefined || rule.visible !== undefined;
}

async function sees(rule: VisibilityRule | undefined, context: McpContext): Promise<boolean> {
  return !rule?.visible || (await rule.visible(context)) === true;
}
