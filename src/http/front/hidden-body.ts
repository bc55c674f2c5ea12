import type { IncomingMessage } from 'node:http';

/** The body-describing headers as they arrived, while the framework is shown a request without a body. */
type HiddenHeaders = Pick<IncomingMessage['headers'], 'content-type' | 'content-length' | 'transfer-encoding'>;
const HIDDEN_BODY_HEADERS = Symbol('MCP_HIDDEN_BODY_HEADERS');
type HidingRequest = IncomingMessage & { [HIDDEN_BODY_HEADERS]?: HiddenHeaders };

/**
 * Makes an MCP POST declare no body, so no parser of the framework or the app reads it (Express's body-parser
 * and Fastify's content-type parsers parse nothing for a request without Content-Type, Transfer-Encoding and a
 * non-zero Content-Length): the driver has read it already, or reads it in the route, after the app's guards.
 * Only headers that are present change (and are restored), so the header object keeps its keys.
 */
export function hideBody(req: IncomingMessage): void {
  const headers = req.headers;
  const hidden: HiddenHeaders = { 'content-type': headers['content-type'] };
  headers['content-type'] = undefined;
  if (headers['content-length'] !== undefined) {
    hidden['content-length'] = headers['content-length'];
    headers['content-length'] = '0';
  }
  if (headers['transfer-encoding'] !== undefined) {
    hidden['transfer-encoding'] = headers['transfer-encoding'];
    headers['transfer-encoding'] = undefined;
  }
  (req as HidingRequest)[HIDDEN_BODY_HEADERS] = hidden;
}

/** Puts back what `hideBody` hid, before the app's guards and the route see the request. */
export function restoreBody(req: IncomingMessage): void {
  const hidden = (req as HidingRequest)[HIDDEN_BODY_HEADERS];
  if (hidden) Object.assign(req.headers, hidden);
}
