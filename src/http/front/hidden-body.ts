import type { IncomingMessage } from 'node:http';

/** The body-describing headers as they arrived, while the framework is shown a request without a body. */
interface HiddenHeaders {
  type: string | undefined;
  length: string | undefined;
  encoding: string | undefined;
}
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
  const hidden: HiddenHeaders = {
    type: headers['content-type'],
    length: headers['content-length'],
    encoding: headers['transfer-encoding'],
  };
  headers['content-type'] = undefined;
  if (hidden.length !== undefined) headers['content-length'] = '0';
  if (hidden.encoding !== undefined) headers['transfer-encoding'] = undefined;
  (req as HidingRequest)[HIDDEN_BODY_HEADERS] = hidden;
}

/** Puts back what `hideBody` hid, before the app's guards and the route see the request. */
export function restoreBody(req: IncomingMessage): void {
  const hidden = (req as HidingRequest)[HIDDEN_BODY_HEADERS];
  if (hidden === undefined) return;
  const headers = req.headers;
  headers['content-type'] = hidden.type;
  if (hidden.length !== undefined) headers['content-length'] = hidden.length;
  if (hidden.encoding !== undefined) headers['transfer-encoding'] = hidden.encoding;
}
