import { receivedMessages, type WireExchange } from './recording-proxy.js';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** The era a `tools/call` went out under, and the revision: the envelope's claim, or the one `initialize` agreed. */
export interface EraUsed {
  era: 'legacy' | 'modern';
  version: string | undefined;
  /** The `MCP-Protocol-Version` header the call carried (SDK 1.10.0 sends none). */
  header: string | undefined;
}

/** Each distinct era and revision the client's `tools/call` requests used, in order of first use. */
export function erasOfToolCalls(exchanges: readonly WireExchange[]): EraUsed[] {
  const seen = new Map<string, EraUsed>();
  let negotiated: string | undefined;
  for (const exchange of exchanges) {
    negotiated = negotiatedVersion(exchange) ?? negotiated;
    for (const message of exchange.sent) {
      if (message.method !== 'tools/call') continue;
      const claim = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[PROTOCOL_VERSION_KEY];
      const header = headerValue(exchange, 'mcp-protocol-version');
      const used: EraUsed =
        typeof claim === 'string'
          ? { era: 'modern', version: claim, header }
          : { era: 'legacy', version: negotiated, header };
      seen.set(JSON.stringify(used), used);
    }
  }
  return [...seen.values()];
}

/** The version an `initialize` in this exchange was answered with, if it was one. */
function negotiatedVersion(exchange: WireExchange): string | undefined {
  const initialize = exchange.sent.find((message) => message.method === 'initialize');
  if (!initialize) return undefined;
  const answer = receivedMessages(exchange).find((message) => message.id === initialize.id && 'result' in message);
  return (answer?.result as { protocolVersion?: string } | undefined)?.protocolVersion;
}

/** Every `Mcp-Session-Id` seen either way: a stateless server never mints one, so a client never sends one. */
export function sessionIds(exchanges: readonly WireExchange[]): string[] {
  return exchanges.flatMap((exchange) =>
    [exchange.responseHeaders['mcp-session-id'], exchange.requestHeaders['mcp-session-id']].filter(
      (id): id is string => typeof id === 'string',
    ),
  );
}

/** Exchanges the server answered with a 5xx: whatever a client sends, that never happens. */
export function serverErrors(exchanges: readonly WireExchange[]): string[] {
  return exchanges
    .filter((exchange) => exchange.status >= 500)
    .map((exchange) => `${exchange.method} ${exchange.status}: ${exchange.responseText.slice(0, 200)}`);
}

/** The methods of the requests the server sent to the client on its response streams (the 2025 way to ask). */
export function serverRequests(exchanges: readonly WireExchange[]): string[] {
  return exchanges.flatMap((exchange) =>
    receivedMessages(exchange)
      .filter((message) => typeof message.method === 'string' && message.id !== undefined)
      .map((message) => message.method as string),
  );
}

/** The HTTP status each JSON-RPC response the client POSTed back was answered with. */
export function postedReplyStatuses(exchanges: readonly WireExchange[]): number[] {
  return exchanges
    .filter(
      (exchange) =>
        exchange.sent.length > 0 &&
        exchange.sent.every((message) => message.method === undefined && ('result' in message || 'error' in message)),
    )
    .map((exchange) => exchange.status);
}

/** How many `tools/call` answers were `input_required` results (the 2026 way to ask). */
export function inputRequiredResults(exchanges: readonly WireExchange[]): number {
  return exchanges
    .flatMap((exchange) => receivedMessages(exchange))
    .filter((message) => (message.result as { resultType?: string } | undefined)?.resultType === 'input_required')
    .length;
}

function headerValue(exchange: WireExchange, name: string): string | undefined {
  const value = exchange.requestHeaders[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * How a client used sessions over its JSON-RPC POSTs: the ids `initialize` minted, each distinct id a later
 * message carried (`none` for one that carried none), and the id each `tools/call` carried.
 */
export interface SessionUse {
  minted: string[];
  carried: string[];
  toolCalls: string[];
}

export function sessionUse(exchanges: readonly WireExchange[]): SessionUse {
  const use: SessionUse = { minted: [], carried: [], toolCalls: [] };
  for (const exchange of exchanges) {
    if (exchange.sent.length === 0) continue;
    if (exchange.sent.some((message) => message.method === 'initialize')) {
      const id = exchange.responseHeaders['mcp-session-id'];
      if (typeof id === 'string') use.minted.push(id);
      continue;
    }
    const id = headerValue(exchange, 'mcp-session-id') ?? 'none';
    if (!use.carried.includes(id)) use.carried.push(id);
    if (exchange.sent.some((message) => message.method === 'tools/call')) use.toolCalls.push(id);
  }
  return use;
}

/**
 * What a conversation with the stateless 2025 leg left on the wire, in one value to compare: the server's
 * requests to the client, the statuses of the replies the client posted, the eras of its calls, session ids
 * (none) and 5xx answers (none).
 */
export function legacyWire(exchanges: readonly WireExchange[]) {
  return {
    serverRequests: serverRequests(exchanges),
    replyStatuses: postedReplyStatuses(exchanges),
    eras: erasOfToolCalls(exchanges),
    sessionIds: sessionIds(exchanges),
    serverErrors: serverErrors(exchanges),
  };
}
