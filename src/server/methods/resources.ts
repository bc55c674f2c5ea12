import { isPlainObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { ListResourcesResult, ListResourceTemplatesResult, ReadResourceResult } from '../../protocol/mcp-types.js';
import type { HandlerFailure } from '../failures/handler-failure.js';
import type { InputRound } from '../input/input-round.js';
import type { Caller } from '../access/caller-identity.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { Cacheable, InterimResult } from '../method-result.js';
import { isPersonal, type Visibility } from '../registry/visibility.js';
import { resourceContents } from '../registry/resource-contents.js';
import type { ResourceReadValue, ResourceRegistry } from '../registry/resource-registry.js';
import { listPage } from './list-page.js';

/** `resources/list`, `resources/templates/list` and `resources/read`. */
export class ResourceMethods {
  constructor(
    private readonly resources: ResourceRegistry,
    private readonly round: InputRound,
    private readonly failure: HandlerFailure,
    private readonly visibility: Visibility,
  ) {}

  list(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<ListResourcesResult>> {
    const { listing, size } = this.resources;
    return listPage(size > 0, 'resources', listing, this.visibility, request, transport);
  }

  listTemplates(
    request: JsonRpcRequest,
    transport: McpRequestContext,
  ): Promise<Cacheable<ListResourceTemplatesResult>> {
    const { templateListing, size } = this.resources;
    return listPage(size > 0, 'resourceTemplates', templateListing, this.visibility, request, transport);
  }

  /** Whether a resource or template serves `uri` to this caller, scopes aside (a subscription checks those). */
  async serves(uri: string, request: JsonRpcRequest, transport: McpRequestContext): Promise<boolean> {
    const match = this.resources.match(uri);
    return match !== undefined && (await this.visibility.shows(match, request, transport));
  }

  async read(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    caller: Caller,
  ): Promise<Cacheable<ReadResourceResult> | InterimResult> {
    if (this.resources.size === 0) throw McpError.methodNotFound(request.method);
    const uri = request.params?.uri;
    if (typeof uri !== 'string') throw McpError.invalidParams('Invalid params: "uri" must be a string');
    const match = this.resources.match(uri);
    if (!match || !(await this.visibility.admits(match, 'resource', uri, request, transport))) {
      throw McpError.resourceNotFound(uri);
    }
    const binding = this.round.binding(request.method, uri, {}, transport, caller);
    const context = await this.round.context(request, transport, binding);
    const value = await this.round.settle<ResourceReadValue>(
      () => match.handler(uri, match.variables, context),
      context,
      binding,
      request,
      (error) => this.failure.toMcpError(error, request, transport),
    );
    if (value instanceof InterimResult) return value;
    const contents = resourceContents(value, uri, match.mimeType);
    const extra = isPlainObject(value) && 'contents' in value ? value : {};
    // A read completed by a retry depends on the user's answers: it must not be cached (spec, caching). A shared
    // cache must not hand a resource some callers may not see to any other caller.
    const retry = request.params?.inputResponses !== undefined || request.params?.requestState !== undefined;
    return new Cacheable(
      { ...extra, contents },
      { kind: 'read', retry, private: isPersonal(match), override: match.cache },
    );
  }
}
