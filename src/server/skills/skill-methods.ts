import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { GetSkillResult, ListSkillsResult, ReadDirectoryResult } from '../../protocol/skills.js';
import type { ScopeGate } from '../access/scope-gate.js';
import type { InputRound } from '../input/input-round.js';
import type { McpContext } from '../mcp-context.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { Cacheable, PRIVATE_LIST, PUBLIC_LIST } from '../method-result.js';
import type { ServedSkill } from './skill-build.js';
import type { SkillCatalog } from './skill-catalog.js';

/**
 * `skills/list`, `skills/get` and `resources/directory/read` (SEP-2640). A skill the caller may not see (its
 * scopes, or its guards) is left out of lists and answered as one the server does not serve: -32602, or the
 * 403 step-up challenge for missing scopes unless `hideForbidden` is set, as for any resource.
 */
export class SkillMethods {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly gate: ScopeGate,
    private readonly round: InputRound,
  ) {}

  /** Pages of whole entries, in URI order; one caller's view when a skill decides per request who sees it. */
  async list(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<ListSkillsResult>> {
    this.requireEnabled(request);
    const { items, nextCursor } = this.catalog.listing.page(request.params?.cursor, new Set(transport.scopes));
    let skills = items;
    if (this.catalog.conditional > 0) {
      const context = await this.contextOf(request, transport);
      const shown = await Promise.all(items.map((entry) => this.seen(this.catalog.get(entry.uri)!, context)));
      skills = items.filter((_, i) => shown[i]);
    }
    const result: ListSkillsResult = { skills: [...skills] };
    if (nextCursor !== undefined) result.nextCursor = nextCursor;
    const personal = this.catalog.conditional > 0 || this.catalog.listing.scoped;
    return new Cacheable(result, personal ? PRIVATE_LIST : PUBLIC_LIST);
  }

  async get(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<GetSkillResult>> {
    this.requireEnabled(request);
    const uri = uriOf(request);
    const skill = this.catalog.get(uri);
    if (!skill || !(await this.allowed(skill, 'skill', uri, request, transport)))
      throw McpError.invalidParams(`Not a skill this server serves: ${uri}`, { uri });
    return new Cacheable({ skill: skill.entry }, skill.requiredScopes || skill.visible ? PRIVATE_LIST : PUBLIC_LIST);
  }

  async readDirectory(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<ReadDirectoryResult>> {
    if (!this.catalog.enabled || !this.catalog.directoryRead) throw McpError.methodNotFound(request.method);
    const uri = uriOf(request);
    const folder = this.catalog.folder(uri);
    if (!folder || !(await this.allowed(folder.skill, 'resource', uri, request, transport)))
      throw McpError.invalidParams(`Not a directory this server serves: ${uri}`, { uri });
    const { items, nextCursor } = folder.pages.page(request.params?.cursor);
    const result: ReadDirectoryResult = { resources: [...items] };
    if (nextCursor !== undefined) result.nextCursor = nextCursor;
    const personal = folder.skill.requiredScopes !== undefined || folder.skill.visible !== undefined;
    return new Cacheable(result, personal ? PRIVATE_LIST : PUBLIC_LIST);
  }

  private requireEnabled(request: JsonRpcRequest): void {
    if (!this.catalog.enabled) throw McpError.methodNotFound(request.method);
  }

  private async allowed(
    skill: ServedSkill,
    kind: string,
    uri: string,
    request: JsonRpcRequest,
    transport: McpRequestContext,
  ): Promise<boolean> {
    if (!this.gate.allows(skill.requiredScopes, transport.scopes, kind, uri)) return false;
    return !skill.visible || this.seen(skill, await this.contextOf(request, transport));
  }

  private async seen(skill: ServedSkill, context: McpContext): Promise<boolean> {
    return !skill.visible || (await skill.visible(context)) === true;
  }

  /** These methods carry no request state: the context only describes who is asking. */
  private async contextOf(request: JsonRpcRequest, transport: McpRequestContext): Promise<McpContext> {
    return this.round.context(
      { ...request, params: { _meta: request.params?._meta } },
      transport,
      this.round.binding(request.method, '', {}, {}, undefined),
    );
  }
}

function uriOf(request: JsonRpcRequest): string {
  const uri = request.params?.uri;
  if (typeof uri !== 'string') throw McpError.invalidParams('Invalid params: "uri" must be a string');
  return uri;
}
