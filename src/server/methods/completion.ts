import { isPlainObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { CompleteResult } from '../../protocol/mcp-types.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import type { PromptRegistry } from '../registry/prompt-registry.js';
import type { Visibility } from '../registry/visibility.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';

/** The spec's cap on the values of one completion result. */
const MAX_VALUES = 100;

/** `completion/complete`: argument completion for prompts and resource templates. */
export class CompletionMethods {
  constructor(
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
    private readonly visibility: Visibility,
  ) {}

  /** Whether anything registered has a completer (the `completions` capability). */
  get available(): boolean {
    return this.prompts.hasCompleters || this.resources.hasCompleters;
  }

  async complete(request: JsonRpcRequest, transport: McpRequestContext): Promise<CompleteResult> {
    if (!this.available) throw McpError.methodNotFound(request.method);
    const params = request.params ?? {};
    const ref = params.ref;
    const argument = params.argument;
    if (
      !isPlainObject(ref) ||
      !isPlainObject(argument) ||
      typeof argument.name !== 'string' ||
      typeof argument.value !== 'string'
    ) {
      throw McpError.invalidParams('Invalid params: completion needs "ref" and "argument" {name, value}');
    }
    const contextArgs =
      isPlainObject(params.context) && isPlainObject(params.context.arguments) ? params.context.arguments : {};
    let completer;
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      completer = this.prompts.completer(ref.name, argument.name);
      const prompt = this.prompts.get(ref.name);
      if (completer === undefined || !(await this.visibility.admits(prompt!, 'prompt', ref.name, request, transport))) {
        throw McpError.invalidParams(`Unknown prompt: ${ref.name}`);
      }
    } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      completer = this.resources.completer(ref.uri, argument.name);
      const template = this.resources.templateRule(ref.uri);
      if (
        completer === undefined ||
        !(await this.visibility.admits(template!, 'resource template', ref.uri, request, transport))
      ) {
        throw McpError.invalidParams(`Unknown resource template: ${ref.uri}`);
      }
    } else {
      throw McpError.invalidParams('Invalid params: "ref" must be a ref/prompt or ref/resource reference');
    }
    const all = completer ? await completer(argument.value, { arguments: contextArgs as Record<string, string> }) : [];
    const values = Array.isArray(all) ? all.filter((v) => typeof v === 'string') : [];
    return {
      completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES },
    };
  }
}
