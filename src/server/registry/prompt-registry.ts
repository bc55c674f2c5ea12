import type { GetPromptResult, PromptDefinition, PromptMessage } from '../../protocol/mcp-types.js';
import type { InputRequired } from '../input-required.js';
import type { ListChangeListener } from '../events/event-bus.js';
import type { McpContext } from '../mcp-context.js';
import { checkCompleters, checkPrimitiveName, completerOf, someDeclareCompleters } from './registry-rules.js';
import { PagedList } from './paged-list.js';
import { checkRequiredScopes } from '../access/required-scopes.js';
import type { Visible } from './visibility.js';
import type { Completer } from './resource-registry.js';
import { stripUndefined } from './tool-registry.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { DUPLICATE_NAME, HANDLER_NOT_A_FUNCTION } from '../errors/configuration-messages.js';

/** What a prompt handler may return: one text, messages, or a full get result. */
export type PromptValue = string | PromptMessage[] | GetPromptResult;

/** A handler may return (or throw) `InputRequired` to ask the client for input first. */
export type PromptHandler = (
  args: Record<string, string>,
  context: McpContext,
) => PromptValue | InputRequired | Promise<PromptValue | InputRequired>;

export interface PromptRegistration extends PromptDefinition {
  handler: PromptHandler;
  complete?: Record<string, Completer>;
  /** OAuth scopes a caller needs: without all of them the prompt is hidden from lists and a get gets 403. */
  requiredScopes?: string[];
  /** Decides per request whether the caller sees the prompt; hidden, a get answers as for an unknown prompt. */
  visible?: Visible;
}

export class PromptRegistry {
  private readonly entries = new Map<string, PromptRegistration>();
  readonly listing: PagedList<PromptDefinition>;

  constructor(
    pageSize: number,
    private readonly onChange: ListChangeListener,
  ) {
    this.listing = new PagedList(
      () => [...this.entries.values()].map(definitionOf),
      pageSize,
      'prompts',
      (d) => this.entries.get(d.name),
    );
  }

  get size(): number {
    return this.entries.size;
  }

  get hasCompleters(): boolean {
    return someDeclareCompleters(this.entries.values());
  }

  get(name: string): PromptRegistration | undefined {
    return this.entries.get(name);
  }

  add(registration: PromptRegistration): void {
    const { name } = registration;
    checkPrimitiveName('prompt', name);
    if (this.entries.has(name)) throw new McpConfigurationError(DUPLICATE_NAME('Prompt', name));
    if (typeof registration.handler !== 'function')
      throw new McpConfigurationError(HANDLER_NOT_A_FUNCTION(`Prompt "${name}"`));
    const declared = (registration.arguments ?? []).map((a) => a.name);
    checkCompleters(`Prompt "${name}"`, registration.complete, declared, 'argument');
    const requiredScopes = checkRequiredScopes(`Prompt "${name}"`, registration.requiredScopes);
    this.entries.set(name, { ...registration, requiredScopes });
    this.changed(requiredScopes);
  }

  remove(name: string): boolean {
    const entry = this.entries.get(name);
    if (!entry) return false;
    this.entries.delete(name);
    this.changed(entry.requiredScopes);
    return true;
  }

  completer(name: string, argument: string): Completer | null | undefined {
    const entry = this.entries.get(name);
    return entry && completerOf(entry.complete, argument);
  }

  private changed(requiredScopes: readonly string[] | undefined): void {
    this.listing.invalidate();
    this.onChange(requiredScopes);
  }
}

function definitionOf(registration: PromptRegistration): PromptDefinition {
  const { handler: _h, complete: _c, requiredScopes: _s, visible: _v, ...definition } = registration;
  return stripUndefined(definition);
}
