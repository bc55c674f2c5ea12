import { createHash } from 'node:crypto';
import { isPlainObject } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, InputRequest, InputRequests, InputResponse } from '../protocol/mcp-types.js';
import type { SchemaCompiler } from './schema/schema-compiler.js';

export interface InputRequiredOptions {
  /** Any JSON value the handler wants back, verified, as `context.state` on the retry. */
  state?: unknown;
}

/**
 * Thrown by a handler that needs input from the client (elicitation, sampling, roots) before it can finish.
 * The call ends with an `input_required` result; the client retries the same call with the answers in
 * `params.inputResponses`, keyed like `requests`.
 */
export class InputRequired extends Error {
  constructor(
    readonly requests: InputRequests,
    readonly options: InputRequiredOptions = {},
  ) {
    super('Additional client input is required before this tool can finish.');
    this.name = 'InputRequired';
  }
}

/** The same as throwing `InputRequired`, for handlers that prefer to return. */
export function inputRequired(requests: InputRequests, options?: InputRequiredOptions): InputRequired {
  return new InputRequired(requests, options);
}

/**
 * A client capability an input request can need. `elicitation` is form mode (what a bare `elicitation: {}`
 * declares); `sampling.tools` is sampling with `tools` or `toolChoice`.
 */
export type InputCapability = 'elicitation' | 'elicitation.url' | 'sampling' | 'sampling.tools' | 'roots';

const REQUIRED: Record<InputCapability, ClientCapabilities> = {
  elicitation: { elicitation: { form: {} } },
  'elicitation.url': { elicitation: { url: {} } },
  sampling: { sampling: {} },
  'sampling.tools': { sampling: { tools: {} } },
  roots: { roots: {} },
};

/** The capability the client must have declared for this input request. */
export function capabilityOf(request: InputRequest): InputCapability {
  switch (request.method) {
    case 'elicitation/create':
      return request.params.mode === 'url' ? 'elicitation.url' : 'elicitation';
    case 'sampling/createMessage':
      return request.params.tools !== undefined || request.params.toolChoice !== undefined
        ? 'sampling.tools'
        : 'sampling';
    case 'roots/list':
      return 'roots';
  }
}

/** Whether the client declared a capability; `elicitation: {}` with neither mode named means form mode. */
export function clientDeclares(capabilities: ClientCapabilities, capability: InputCapability): boolean {
  switch (capability) {
    case 'elicitation': {
      const elicitation = capabilities.elicitation;
      if (!isPlainObject(elicitation)) return false;
      return isPlainObject(elicitation.form) || (!('url' in elicitation) && !('form' in elicitation));
    }
    case 'elicitation.url':
      return isPlainObject(capabilities.elicitation) && isPlainObject(capabilities.elicitation.url);
    case 'sampling':
      return isPlainObject(capabilities.sampling);
    case 'sampling.tools':
      return isPlainObject(capabilities.sampling) && isPlainObject(capabilities.sampling.tools);
    case 'roots':
      return isPlainObject(capabilities.roots);
  }
}

/** The client capability an input request needs, as the `requiredCapabilities` object of a -32021 error. */
export function capabilityNeededFor(request: InputRequest): ClientCapabilities {
  return REQUIRED[capabilityOf(request)];
}

/** Whether the client declared what the request needs. */
export function clientSupports(capabilities: ClientCapabilities, request: InputRequest): boolean {
  return clientDeclares(capabilities, capabilityOf(request));
}

const ELICIT_ACTIONS = new Set(['accept', 'decline', 'cancel']);

/** Whether a value has the shape of an answer to the given kind of input request (spec §7.1 result types). */
export function isInputResponseFor(method: InputRequest['method'], value: unknown): value is InputResponse {
  if (!isPlainObject(value)) return false;
  switch (method) {
    case 'elicitation/create':
      return (
        typeof value.action === 'string' &&
        ELICIT_ACTIONS.has(value.action) &&
        (value.content === undefined ||
          (isPlainObject(value.content) && Object.values(value.content).every(isElicitValue)))
      );
    case 'sampling/createMessage':
      return (
        (value.role === 'assistant' || value.role === 'user') &&
        typeof value.model === 'string' &&
        (isSamplingContent(value.content) ||
          (Array.isArray(value.content) && value.content.length > 0 && value.content.every(isSamplingContent)))
      );
    case 'roots/list':
      return (
        Array.isArray(value.roots) &&
        value.roots.every(
          (root) =>
            isPlainObject(root) &&
            typeof root.uri === 'string' &&
            root.uri.startsWith('file://') &&
            (root.name === undefined || typeof root.name === 'string'),
        )
      );
  }
}

/** Whether a value has the shape of any input response: the kernel's filter before a handler sees the map. */
/**
 * What identifies a question in the signed request state: an answer is handed to `ctx.elicit`/`sample`/`listRoots`
 * only under the key this server asked it and for the very request it asked (a handler that asks something else
 * under the same key on the retry is asked again).
 */
export function questionDigest(request: InputRequest): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('base64url').slice(0, 22);
}

export function isAnyInputResponse(value: unknown): value is InputResponse {
  return (
    isInputResponseFor('elicitation/create', value) ||
    isInputResponseFor('sampling/createMessage', value) ||
    isInputResponseFor('roots/list', value)
  );
}

/**
 * Whether a value answers this very request: the right result type and, for an accepted form elicitation,
 * content that satisfies the schema that was asked for. A declined or cancelled elicitation is an answer too;
 * what to do with it is the handler's decision.
 */
export function answers(request: InputRequest, value: unknown, schemas: SchemaCompiler): value is InputResponse {
  if (!isInputResponseFor(request.method, value)) return false;
  if (request.method !== 'elicitation/create' || request.params.mode === 'url') return true;
  const result = value as { action: string; content?: unknown };
  if (result.action !== 'accept') return true;
  return (
    schemas
      .compileByValue(request.params.requestedSchema, 'elicitation requestedSchema')
      .validate(result.content ?? {}) === null
  );
}

function isElicitValue(value: unknown): boolean {
  const type = typeof value;
  return (
    type === 'string' ||
    type === 'number' ||
    type === 'boolean' ||
    (Array.isArray(value) && value.every((v) => typeof v === 'string'))
  );
}

/**
 * A sampling result's content: any typed block. Wider than a tool result's `isContentBlock` (content.ts) on
 * purpose, since sampling content also carries `tool_use` and `tool_result` blocks.
 */
function isSamplingContent(value: unknown): boolean {
  return isPlainObject(value) && typeof value.type === 'string';
}
