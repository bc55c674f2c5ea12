import { ErrorCode } from '../../protocol/error-codes.js';
import { isPlainObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import {
  LOG_LEVELS,
  type ClientCapabilities,
  type InputRequest,
  type InputRequests,
  type InputResponses,
  type MetaObject,
} from '../../protocol/mcp-types.js';
import { clientCapabilitiesOf, mergeCapabilities } from './client-capabilities.js';
import {
  capabilityNeededFor,
  clientSupports,
  InputRequired,
  isAnyInputResponse,
  isInputResponseFor,
  questionDigest,
} from '../input-required.js';
import { whenReady } from '../util/when-ready.js';
import { META_CLIENT_CAPABILITIES } from '../../protocol/versions.js';
import type { McpContext } from '../mcp-context.js';
import { makeContext, type VerifiedRound } from '../make-context.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { InterimResult } from '../method-result.js';
import type { Caller } from '../access/caller-identity.js';
import { StateBinding, type RequestStateCodec } from './request-state-codec.js';
import type { RequestStateStore } from './request-state-store.js';
import type { SchemaCompiler } from '../schema/schema-compiler.js';

/**
 * Binds more of the request into request state than the call and its caller: reads the transport's request
 * (Express or Fastify request, undefined over stdio) and returns a JSON value, such as the tenant the request
 * is served for, so a round started under one tenant cannot be finished under another.
 */
export type RequestStateBind = (request: any) => unknown;

/** What travels between rounds, signed: the round, the handler's state, earlier answers and what was asked. */
interface SealedState {
  r: number;
  s?: unknown;
  a?: InputResponses;
  q?: Record<string, InputRequest['method']>;
  /** The digest of every question asked so far, by key: what the helpers take answers for. */
  d?: Record<string, string>;
}

const INPUT_METHODS: ReadonlySet<unknown> = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/**
 * The one place multi-round input lives, for every family: the handler's context is built from the request
 * (verifying its `requestState`), and an `InputRequired` becomes the era-neutral `InterimResult`.
 */
export class InputRound {
  constructor(
    private readonly states: RequestStateCodec,
    private readonly store: RequestStateStore,
    private readonly schemas: SchemaCompiler,
    private readonly audience: string,
    private readonly bind?: RequestStateBind,
  ) {}

  /**
   * Binds request state to what created it: the server, the method, the primitive, its arguments, the caller
   * and what the app's `bind` hook reads from the transport's request (asked only when a state is sealed or opened).
   */
  binding(method: string, name: string, args: unknown, transport: McpRequestContext, caller: Caller): StateBinding {
    const bind = this.bind;
    const extra = bind && (() => bind(transport.httpRequest));
    return new StateBinding(method, name, args, caller, this.audience, extra);
  }

  /** The context of a request that carries no request state (a list, a visibility check): who is asking. */
  askerContext(request: JsonRpcRequest, transport: McpRequestContext): McpContext | Promise<McpContext> {
    const asked = { ...request, params: { _meta: request.params?._meta } };
    return this.context(asked, transport, this.binding(request.method, '', {}, {}, undefined));
  }

  /**
   * Builds the handler's context from a request, in that request, for its round as far as it can be trusted. A
   * `requestState` is verified (signature, expiry, binding) before anything else and a failure ends the call with
   * -32602, so a handler never runs on forged state; with `singleUse`, the state's id is also consumed in the
   * store, and a replay is rejected the same way. One method from the request to its context: most rounds are
   * known at once, and a call less is then spent on each.
   */
  context(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    binding: StateBinding,
    singleUse = false,
    mayStartTask = false,
  ): McpContext | Promise<McpContext> {
    const origin = { request: transport, caller: binding, mayStartTask };
    const params = request.params ?? {};
    const meta = isPlainObject(params._meta) ? params._meta : {};
    const logLevel = meta['io.modelcontextprotocol/logLevel'];
    if (logLevel !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(logLevel)) {
      throw McpError.invalidParams(`Invalid params: unknown log level ${JSON.stringify(logLevel)}`);
    }
    const sent = params.inputResponses;
    if (sent !== undefined && !isPlainObject(sent))
      throw McpError.invalidParams('Invalid params: "inputResponses" must be an object');
    // Most calls carry no state: their round is known at once, without a microtask. A first round seals one
    // only if the client can be asked for input, and only then does the binding need its copy of the arguments.
    if (params.requestState === undefined) {
      if (mayBeAsked(meta)) binding.capture();
      // `verifiedRound` of `FIRST_ROUND` spelled out: a call less on every call that carries no state.
      const round: VerifiedRound = {
        requestId: request.id,
        method: request.method,
        meta: meta as MetaObject,
        inputResponses: sent === undefined ? {} : acceptedAnswers(sent, FIRST_ROUND),
        asked: undefined,
        state: undefined,
        round: 0,
      };
      return makeContext(round, origin, this.schemas);
    }
    const opened = this.states.open<SealedState>(params.requestState, binding.digest);
    if (!opened.ok)
      throw McpError.invalidParams('Invalid or expired requestState', {
        reason: 'invalid_request_state',
        detail: opened.reason,
      });
    if (!singleUse) return makeContext(verifiedRound(request, meta, sent, opened.payload), origin, this.schemas);
    return whenReady(this.store.consume(opened.id, opened.expiresAt), (fresh) => {
      if (!fresh)
        throw McpError.invalidParams('requestState has already been used', { reason: 'request_state_replayed' });
      return makeContext(verifiedRound(request, meta, sent, opened.payload), origin, this.schemas);
    });
  }

  /**
   * Runs a prompt or resource handler in its round: what it returned, or the interim result when it asked for
   * input (returned or thrown: both styles ask the same). Any other error becomes what `failed` makes of it.
   */
  async settle<T>(
    run: () => T | InputRequired | Promise<T | InputRequired>,
    context: McpContext,
    binding: StateBinding,
    request: JsonRpcRequest,
    failed: (error: unknown) => Error,
  ): Promise<T | InterimResult> {
    let value: T | InputRequired;
    try {
      value = await run();
    } catch (error) {
      if (error instanceof InputRequired) return this.interim(error, context, binding, request);
      throw failed(error);
    }
    return value instanceof InputRequired ? this.interim(value, context, binding, request) : value;
  }

  /**
   * Turns an input request into the interim result. Requests the client did not declare a capability for are
   * left out (the spec forbids sending them); when nothing is left, the call cannot proceed: -32021. The
   * answers gathered so far travel in the signed state, so the next round sees all of them.
   */
  interim(signal: InputRequired, context: McpContext, binding: StateBinding, request: JsonRpcRequest): InterimResult {
    const declared = clientCapabilitiesOf(request);
    const kept: Array<[string, InputRequest]> = [];
    let missing: ClientCapabilities | undefined;
    for (const [key, inputRequest] of Object.entries(signal.requests)) {
      if (!INPUT_METHODS.has(inputRequest?.method)) {
        throw new McpError(
          ErrorCode.InternalError,
          `Error: input request "${key}" must be elicitation/create, sampling/createMessage or roots/list`,
        );
      }
      if (!declared || clientSupports(declared, inputRequest)) kept.push([key, inputRequest]);
      else missing = mergeCapabilities(missing, capabilityNeededFor(inputRequest));
    }
    if (kept.length === 0) {
      if (missing) throw McpError.missingCapabilities(missing);
      throw new McpError(ErrorCode.InternalError, 'Error: input was required but no input request was given');
    }
    // Answers this round did not ask for again are settled: they travel signed and win over a resent copy.
    const requests: InputRequests = Object.fromEntries(kept);
    const settled = Object.entries(context.inputResponses).filter(([key]) => !Object.hasOwn(requests, key));
    const sealed: SealedState = {
      r: context.round + 1,
      q: Object.fromEntries(kept.map(([key, { method }]) => [key, method])),
    };
    if (settled.length > 0) sealed.a = Object.fromEntries(settled);
    const digests: Record<string, string> = {};
    for (const [key] of settled)
      if (context.asked && Object.hasOwn(context.asked, key)) digests[key] = context.asked[key];
    for (const [key, inputRequest] of kept) digests[key] = questionDigest(inputRequest);
    sealed.d = digests;
    const state = signal.options.state !== undefined ? signal.options.state : context.state;
    if (state !== undefined) sealed.s = state;
    return new InterimResult(requests, this.states.seal(sealed, binding.digest), request.method === 'tools/call');
  }
}

/** The state of a first round: none sealed yet. Shared, since a round only reads it. */
const FIRST_ROUND: Readonly<SealedState> = Object.freeze({ r: 0 });

/** A round as verified: the request's own fields and what its state (`FIRST_ROUND` when none) says. */
function verifiedRound(
  request: JsonRpcRequest,
  meta: Record<string, unknown>,
  sent: unknown,
  state: Readonly<SealedState>,
): VerifiedRound {
  return {
    requestId: request.id,
    method: request.method,
    meta: meta as MetaObject,
    // A first round (no answers, no state) is most calls: no filtering to do.
    inputResponses:
      sent === undefined && state.a === undefined
        ? {}
        : acceptedAnswers((sent ?? {}) as Record<string, unknown>, state),
    asked: state.d,
    state: state.s,
    round: state.r,
  };
}

/**
 * Whether an input request can reach this request's client (`meta`: the request's `_meta`): it declared a
 * capability one needs, or declared nothing (a 2025-era client without a session), when every request is sent
 * and the client answers for itself.
 */
function mayBeAsked(meta: Record<string, unknown>): boolean {
  const declared = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(declared)) return true;
  // An absent capability, most of them, is told without a call.
  const { elicitation, sampling, roots } = declared;
  return (
    (elicitation !== undefined && isPlainObject(elicitation)) ||
    (sampling !== undefined && isPlainObject(sampling)) ||
    (roots !== undefined && isPlainObject(roots))
  );
}

/**
 * The answers a handler sees. On a first call, every entry shaped like an answer; on a retry, only answers
 * to what the last round asked, each of the type asked for. Answers settled in earlier rounds come from the
 * signed state and win, so nothing a later round was built on can be swapped afterwards.
 */
function acceptedAnswers(sent: Record<string, unknown>, state: Readonly<SealedState>): InputResponses {
  const asked = state.q;
  const fresh = Object.entries(sent).filter(([key, value]) =>
    asked ? Object.hasOwn(asked, key) && isInputResponseFor(asked[key], value) : isAnyInputResponse(value),
  );
  return { ...(Object.fromEntries(fresh) as InputResponses), ...state.a };
}
