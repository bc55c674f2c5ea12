import { ErrorCode } from './error-codes.js';
import { errorResponse, isPlainObject, type JsonRpcErrorObject, type JsonRpcErrorResponse } from './jsonrpc.js';

/** A well-formed JSON-RPC response from a client, answering one of the server's requests. */
export interface ParsedClientReply {
  id: string;
  reply: { result: Record<string, unknown> } | { error: JsonRpcErrorObject };
}

/** What becomes of a posted reply, as a transport reports it. */
export type ReplyOutcome = 'delivered' | 'unknown' | 'forbidden' | 'malformed' | 'too-large';

/**
 * A posted response is a reply only when it is exactly one JSON-RPC response to a string id (the server's
 * requests all have one): `result` an object, or `error` with an integer code and a string message.
 */
export function parseClientReply(message: Record<string, unknown>): ParsedClientReply | null {
  if (message.jsonrpc !== '2.0' || typeof message.id !== 'string') return null;
  const hasResult = 'result' in message;
  if (hasResult === 'error' in message) return null;
  if (hasResult) return isPlainObject(message.result) ? { id: message.id, reply: { result: message.result } } : null;
  const error = message.error;
  if (!isPlainObject(error) || !Number.isSafeInteger(error.code) || typeof error.message !== 'string') return null;
  const reply: JsonRpcErrorObject = { code: error.code as number, message: error.message };
  if (error.data !== undefined) reply.data = error.data;
  return { id: message.id, reply: { error: reply } };
}

// 2025-11-25 transports: an accepted response gets 202 and no body; one the server cannot accept an HTTP error
// status, optionally with a JSON-RPC error that has no id (the id names the server's own request).
const REFUSALS: Record<Exclude<ReplyOutcome, 'delivered'>, { status: number; message: string }> = {
  unknown: {
    status: 400,
    message: 'Bad Request: no server request with this id is waiting for a reply (answered, timed out or never sent)',
  },
  forbidden: { status: 403, message: 'Forbidden: this reply answers a request made for another caller' },
  malformed: {
    status: 400,
    message:
      'Invalid Request: a reply must be one JSON-RPC response with a string id and either a result object or an error',
  },
  'too-large': {
    status: 413,
    message: 'Payload Too Large: the reply exceeds the size allowed for answers to server requests',
  },
};

/** The HTTP answer to a posted reply: 202 with no body when delivered, else a status and a JSON-RPC error. */
export function replyAnswer(
  outcome: ReplyOutcome,
): { status: 202 } | { status: number; response: JsonRpcErrorResponse } {
  if (outcome === 'delivered') return { status: 202 };
  const { status, message } = REFUSALS[outcome];
  return { status, response: errorResponse(null, ErrorCode.InvalidRequest, message) };
}
