import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { JsonRpcResponse } from '../../protocol/jsonrpc.js';
import {
  SEES_FAILURES_ONLY,
  isFailedResponse,
  outcomeOf,
  type FailureObserver,
  type McpCall,
  type McpCallObserver,
} from '../../server/mcp-call.js';
import { logSafe } from '../../server/mcp-logger.js';

/**
 * Logs one line per failed call through Nest's `Logger` (so the app's logger, levels and format apply), with
 * a correlation id. An internal error also carries that id in `error.data.correlationId`, so a user who
 * reports the failure hands over the key to the server-side line without the server revealing its cause.
 */
export function callLoggingObserver(logger: Logger): McpCallObserver {
  // An observer rather than an interceptor: it sees every call, most succeed untouched, and reading the answer
  // needs no promise of its own.
  // Most calls succeed: they leave at once, without an outcome of their own.
  const observer: FailureObserver = (call, response) =>
    isFailedResponse(response) ? logFailed(logger, call, response) : response;
  observer[SEES_FAILURES_ONLY] = true;
  return observer;
}

function logFailed(logger: Logger, call: McpCall, response: JsonRpcResponse): JsonRpcResponse {
  const outcome = outcomeOf(response);
  if (outcome.status !== 'error' && outcome.status !== 'tool_error') return response;
  // The id a redacted message already gave the client, so the client's reference finds this line.
  const correlationId = call.correlationId ?? randomUUID();
  // Everything from the request (method, name, URI, id, messages that quote them) is escaped: one line each.
  const target = call.name ?? call.uri;
  const subject = logSafe(target === undefined ? call.method : `${call.method} ${target}`);
  const cause =
    call.error === undefined
      ? ''
      : ` (cause: ${logSafe(call.error instanceof Error ? call.error.message : String(call.error))})`;
  const line = `${subject} failed [correlationId=${correlationId}, id=${logSafe(call.requestId)}]: ${outcome.errorType} ${logSafe(oneLine(outcome.message))}${cause}`;
  if (outcome.errorCode === ErrorCode.InternalError || call.error !== undefined) {
    // An unexpected exception: the detail the client may not see, with its stack (whose own lines stay lines,
    // while its message, which may quote the request, is escaped as above).
    logger.error(line, call.error instanceof Error ? safeStack(call.error) : undefined);
    if ('error' in response && response.error.data === undefined) response.error.data = { correlationId };
  } else if (outcome.errorCode === ErrorCode.Unauthorized) {
    // A client's first request normally goes without a token and gets 401 with the challenge that starts its
    // OAuth flow: routine, so debug. A 403 (insufficient scope) or a 503 (the verifier is down) stays louder.
    logger.debug(line);
  } else {
    logger.warn(line);
  }
  return response;
}

function safeStack(error: Error): string | undefined {
  return error.stack && error.message ? error.stack.replace(error.message, logSafe(error.message)) : error.stack;
}

function oneLine(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}
