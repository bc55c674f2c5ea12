import type { ServerResponse } from 'node:http';
import { PROGRESS_STEPS, toolDefinitions } from '../fixtures.js';

/**
 * The floor the framework rows measure: a JSON-RPC dispatcher written by hand for exactly the benchmark's
 * requests, with no validation beyond what answering needs. It writes to Node's response itself, as the MCP
 * driver does, so a framework row differs from the MCP row only by what the MCP layer adds.
 */
export function createHandDispatcher(toolCount: number): (message: unknown, res: ServerResponse) => void {
  const tools = toolDefinitions(toolCount);
  return (message, res) => {
    const request = message as {
      id: number;
      method: string;
      params?: { name?: string; arguments?: { a: number; b: number; items?: unknown[] } };
    };
    const name = request.params?.name;
    if (request.method === 'tools/list') {
      writeJson(res, { jsonrpc: '2.0', id: request.id, result: { tools, resultType: 'complete' } });
      return;
    }
    if (request.method === 'tools/call' && name?.startsWith('search_')) {
      writeJson(res, {
        jsonrpc: '2.0',
        id: request.id,
        result: { content: [{ type: 'text', text: 'no matches' }], resultType: 'complete' },
      });
      return;
    }
    if (request.method === 'tools/call' && name === 'add') {
      const { a, b } = request.params!.arguments!;
      writeJson(res, {
        jsonrpc: '2.0',
        id: request.id,
        result: { content: [{ type: 'text', text: String(a + b) }], resultType: 'complete' },
      });
      return;
    }
    if (request.method === 'tools/call' && name === 'count_items') {
      writeJson(res, {
        jsonrpc: '2.0',
        id: request.id,
        result: {
          content: [{ type: 'text', text: String(request.params!.arguments!.items!.length) }],
          resultType: 'complete',
        },
      });
      return;
    }
    if (request.method === 'tools/call' && name === 'progress') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const progress of PROGRESS_STEPS) {
        res.write(
          sseFrame({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: 'bench', progress, total: 3 },
          }),
        );
      }
      res.end(
        sseFrame({
          jsonrpc: '2.0',
          id: request.id,
          result: { content: [{ type: 'text', text: 'done' }], resultType: 'complete' },
        }),
      );
      return;
    }
    writeJson(
      res,
      { jsonrpc: '2.0', id: request.id ?? null, error: { code: -32601, message: 'Method not found' } },
      404,
    );
  };
}

function writeJson(res: ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sseFrame(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
