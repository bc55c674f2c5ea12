import { isPlainObject } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, InputRequest, InputRequests, InputResponse } from '../protocol/mcp-types.js';

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

/** The client capability an input request needs, as the `requiredCapabilities` object of a -32021 error. */
export function capabilityNeededFor(request: InputRequest): ClientCapabilities {
  switch (request.method) {
    case 'elicitation/create':
      return request.params.mode === 'url' ? { elicitation: { url: {} } } : { elicitation: { form: {} } };
    case 'sampling/createMessage':
      return request.params.tools !== undefined || request.params.toolChoice !== undefined ? { sampling: { tools: {} } } : { sampling: {} };
    case 'roots/list':
      return { roots: {} };
  }
}

/** Whether the client declared what the request needs; `elicitation: {}` means form mode. */
export function clientSupports(capabilities: ClientCapabilities, request: InputRequest): boolean {
  switch (request.method) {
    case 'elicitation/create': {
      const elicitation = capabilities.elicitation;
      if (!isPlainObject(elicitation)) return false;
      if (request.params.mode === 'url') return isPlainObject(elicitation.url);
      return isPlainObject(elicitation.form) || (!('url' in elicitation) && !('form' in elicitation));
    }
    case 'sampling/createMessage': {
      if (!isPlainObject(capabilities.sampling)) return false;
      const needsTools = request.params.tools !== undefined || request.params.toolChoice !== undefined;
      return !needsTools || isPlainObject(capabilities.sampling.tools);
    }
    case 'roots/list':
      return isPlainObject(capabilities.roots);
  }
}

const ELICIT_ACTIONS = new Set(['accept', 'decline', 'cancel']);

/** Whether a value has the shape of an answer to the given kind of input request. */
export function isInputResponseFor(method: InputRequest['method'], value: unknown): value is InputResponse {
  if (!isPlainObject(value)) return false;
  switch (method) {
    case 'elicitation/create':
      return typeof value.action === 'string' && ELICIT_ACTIONS.has(value.action) && (value.content === undefined || isPlainObject(value.content));
    case 'sampling/createMessage':
      return (value.role === 'assistant' || value.role === 'user') && typeof value.model === 'string' && isPlainObject(value.content);
    case 'roots/list':
      return Array.isArray(value.roots) && value.roots.every((root) => isPlainObject(root) && typeof root.uri === 'string');
  }
}

/** Whether a value has the shape of any input response: the kernel's filter before a handler sees the map. */
export function isAnyInputResponse(value: unknown): value is InputResponse {
  return isInputResponseFor('elicitation/create', value) || isInputResponseFor('sampling/createMessage', value) || isInputResponseFor('roots/list', value);
}
