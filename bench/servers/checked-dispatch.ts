import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { ADD_TOOL, COUNT_ITEMS_TOOL, PROTOCOL_VERSION } from '../fixtures.js';

const require = createRequire(import.meta.url);
const { Ajv2020 } = require('ajv/dist/2020.js') as { Ajv2020: new () => { compile(schema: object): ValidateFunction } };

/** Hosts a server bound to 127.0.0.1 answers: what DNS-rebinding protection lets through. */
const LOCAL_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$/;
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'bench', version: '1.0.0' } };

/**
 * The floor of a conforming server: the hand-written dispatcher behind the rules revision 2026-07-28 asks of
 * every call over HTTP, written by hand for exactly the benchmark's requests: Host and Origin (DNS rebinding,
 * 403), the media type (415), the JSON-RPC envelope (-32600), the per-request `_meta` and its protocol version,
 * the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers equal to the body (-32020), the arguments
 * validated against the tool's input schema (-32602, ajv compiled at start-up), and the server's identity on
 * the result. It answers the `tools/call` rows (`add`, and `count_items` of the argument-shape rows). What a conforming server of any design must do per call, with nothing of this library in it: the
 * MCP rows' ratio to this floor is what the library's own machinery costs beyond the protocol.
 */
export function createCheckedDispatcher(): (message: unknown, req: IncomingMessage, res: ServerResponse) => void {
  const ajv = new Ajv2020();
  const validators = new Map<string, ValidateFunction>([
    [ADD_TOOL.name, ajv.compile(ADD_TOOL.inputSchema)],
    [COUNT_ITEMS_TOOL.name, ajv.compile(COUNT_ITEMS_TOOL.inputSchema)],
  ]);
  return (message, req, res) => {
    const { headers } = req;
    const origin = headers.origin;
    if (!LOCAL_HOST.test(headers.host ?? '') || (origin !== undefined && !LOCAL_HOST.test(new URL(origin).host)))
      return refuse(res, 403, null, -32000, 'Invalid Host or Origin');
    if (!/^application\/json\b/i.test(headers['content-type'] ?? ''))
      return refuse(res, 415, null, -32600, 'Unsupported Media Type');
    const request = message as {
      jsonrpc?: unknown;
      id?: unknown;
      method?: unknown;
      params?: { name?: unknown; arguments?: unknown; _meta?: Record<string, unknown> };
    };
    const id = typeof request.id === 'string' || typeof request.id === 'number' ? request.id : null;
    if (request.jsonrpc !== '2.0' || id === null || typeof request.method !== 'string')
      return refuse(res, 400, id, -32600, 'Invalid Request');
    const params = request.params;
    const version = params?._meta?.['io.modelcontextprotocol/protocolVersion'];
    if (typeof params !== 'object' || params === null || version !== PROTOCOL_VERSION)
      return refuse(res, 400, id, -32602, 'Invalid params: the per-request envelope is missing');
    if (
      header(headers, 'mcp-protocol-version') !== version ||
      header(headers, 'mcp-method') !== request.method ||
      (request.method === 'tools/call' && header(headers, 'mcp-name') !== params.name)
    )
      return refuse(res, 400, id, -32020, 'Header mismatch');
    const validate = request.method === 'tools/call' && validators.get(params.name as string);
    if (!validate) return refuse(res, 404, id, -32601, 'Method not found');
    const args = params.arguments ?? {};
    if (!validate(args)) return refuse(res, 200, id, -32602, 'Invalid params');
    const { a, b, items } = args as { a: number; b: number; items?: unknown[] };
    const text = String(items ? items.length : a + b);
    writeJson(res, 200, {
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text }], resultType: 'complete', _meta: SERVER_INFO },
    });
  };
}

/** A header's value with its optional whitespace trimmed, as the revision asks servers to accept it. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
}

function refuse(res: ServerResponse, status: number, id: unknown, code: number, message: string): void {
  writeJson(res, status, { jsonrpc: '2.0', id, error: { code, message } });
}

function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
