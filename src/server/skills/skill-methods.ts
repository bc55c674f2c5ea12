import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type {
  DirectoryChild,
  GetSkillResult,
  ListSkillsResult,
  ReadDirectoryResult,
  SkillEntry,
} from '../../protocol/skills.js';
import { isPersonal, type Visibility } from '../registry/visibility.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { Cacheable, PRIVATE_LIST, PUBLIC_LIST } from '../method-result.js';
import type { SkillCatalog } from './skill-catalog.js';

/**
 * `skills/list`, `skills/get` and `resources/directory/read` (SEP-2640). A skill the caller may not see (its
 * scopes, or its guards) is left out of lists and answered as one the server does not serve: -32602, or the
 * 403 step-up challenge for missing scopes unless `hideForbidden` is set, as for any resource.
 */
export class SkillMethods {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly visibility: Visibility,
  ) {}

  /** Pages of whole entries, in URI order; one caller's view when a skill decides per request who sees it. */
  async list(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<ListSkillsResult>> {
    this.requireEnabled(request);
    const { items, nextCursor, personal } = await this.visibility.page(this.catalog.listing, request, transport);
    // The page as the listing keeps it, not a copy: its bytes were serialized once, and a copy would miss them.
    const result: ListSkillsResult = { skills: items as SkillEntry[] };
    if (nextCursor !== undefined) result.nextCursor = nextCursor;
    return new Cacheable(result, personal ? PRIVATE_LIST : PUBLIC_LIST);
  }

  async get(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<GetSkillResult>> {
    this.requireEnabled(request);
    const uri = uriOf(request);
    const skill = this.catalog.get(uri);
    if (!skill || !(await this.visibility.admits(skill, 'skill', uri, request, transport)))
      throw McpError.invalidParams(`Not a skill this server serves: ${uri}`, { uri });
    return new Cacheable({ skill: skill.entry }, isPersonal(skill) ? PRIVATE_LIST : PUBLIC_LIST);
  }

  async readDirectory(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<ReadDirectoryResult>> {
    if (!this.catalog.enabled || !this.catalog.directoryRead) throw McpError.methodNotFound(request.method);
    const uri = uriOf(request);
    const folder = this.catalog.folder(uri);
    if (!folder || !(await this.visibility.admits(folder.skill, 'resource', uri, request, transport)))
      throw McpError.invalidParams(`Not a directory this server serves: ${uri}`, { uri });
    const { items, nextCursor } = folder.pages.page(request.params?.cursor);
    const result: ReadDirectoryResult = { resources: items as DirectoryChild[] };
    if (nextCursor !== undefined) result.nextCursor = nextCursor;
    return new Cacheable(result, isPersonal(folder.skill) ? PRIVATE_LIST : PUBLIC_LIST);
  }

  private requireEnabled(request: JsonRpcRequest): void {
    if (!this.catalog.enabled) throw McpError.methodNotFound(request.method);
  }
}

function uriOf(request: JsonRpcRequest): string {
  const uri = request.params?.uri;
  if (typeof uri !== 'string') throw McpError.invalidParams('Invalid params: "uri" must be a string');
  return uri;
}
