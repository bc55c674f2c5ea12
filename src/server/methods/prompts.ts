import { ErrorCode } from '../../protocol/error-codes.js';
import { isPlainObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { GetPromptResult, ListPromptsResult, PromptMessage } from '../../protocol/mcp-types.js';
import type { HandlerFailure } from '../failures/handler-failure.js';
import type { InputRound } from '../input/input-round.js';
import type { Caller } from '../access/caller-identity.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { InterimResult, type Cacheable } from '../method-result.js';
import type { PromptRegistry } from '../registry/prompt-registry.js';
import type { Visibility } from '../registry/visibility.js';
import { listPage } from './list-page.js';

/** `prompts/list` and `prompts/get`. */
export class PromptMethods {
  constructor(
    private readonly prompts: PromptRegistry,
    private readonly round: InputRound,
    private readonly failure: HandlerFailure,
    private readonly visibility: Visibility,
  ) {}

  list(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<ListPromptsResult>> {
    return listPage(this.prompts.size > 0, 'prompts', this.prompts.listing, this.visibility, request, transport);
  }

  async get(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    caller: Caller,
  ): Promise<GetPromptResult | InterimResult> {
    if (this.prompts.size === 0) throw McpError.methodNotFound(request.method);
    const params = request.params ?? {};
    if (typeof params.name !== 'string') throw McpError.invalidParams('Invalid params: "name" must be a string');
    const prompt = this.prompts.get(params.name);
    if (!prompt || !(await this.visibility.admits(prompt, 'prompt', params.name, request, transport))) {
      throw McpError.invalidParams(`Unknown prompt: ${params.name}`);
    }
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isPlainObject(args) || !Object.values(args).every((v) => typeof v === 'string')) {
      throw McpError.invalidParams('Invalid params: prompt "arguments" must be an object of strings');
    }
    for (const argument of prompt.arguments ?? []) {
      if (argument.required && !Object.hasOwn(args, argument.name)) {
        throw McpError.invalidParams(`Missing required argument: ${argument.name}`);
      }
    }
    const binding = this.round.binding(request.method, params.name, args, transport, caller);
    const context = await this.round.context(request, transport, binding);
    const value: unknown = await this.round.settle(
      () => prompt.handler(args as Record<string, string>, context),
      context,
      binding,
      request,
      (error) => this.failure.toMcpError(error, request, transport),
    );
    if (value instanceof InterimResult) return value;
    if (typeof value === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
    if (Array.isArray(value)) return { messages: value as PromptMessage[] };
    if (isPlainObject(value) && Array.isArray(value.messages)) return { ...value } as unknown as GetPromptResult;
    throw new McpError(ErrorCode.InternalError, `Prompt "${params.name}" returned no messages`);
  }
}
