import { request, type Agent } from 'node:http';
import type { GcFigures } from './gc-window.js';

/**
 * What every benchmarked server serves, so they all do the same work: an `add` tool (the `tools/call` case),
 * a `progress` tool that streams three progress notifications before its result (the SSE case), and filler
 * tools with a realistic definition to reach 5 or 1,000 registered tools (the `tools/list` cases).
 */
export const PROTOCOL_VERSION = '2026-07-28';
/** What a 2025-era client (SDK 1.x, the official client's default) sends after its `initialize`. */
export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

/** The servers, in table order; each runs in its own process (`server-child.ts`). */
export const SERVERS = {
  'mcp-fastify': 'nestjs-mcp on Nest + Fastify',
  'mcp-express': 'nestjs-mcp on Nest + Express',
  'nest-fastify': 'bare Nest + Fastify @Post',
  'nest-express': 'bare Nest + Express @Post',
  'nest-fastify-checked': 'bare Nest + Fastify @Post, with the rules 2026-07-28 asks of each call, by hand',
  'nest-express-checked': 'bare Nest + Express @Post, with the rules 2026-07-28 asks of each call, by hand',
  'mcp-express-prototype': 'nestjs-mcp on Nest + Express, PrototypeExpressAdapter',
  'mcp-fastify-redis': 'nestjs-mcp on Nest + Fastify, every shared part in Redis',
  'mcp-fastify-features': 'nestjs-mcp on Nest + Fastify, with a UI resource and a route tool',
  'mcp-fastify-decorated': 'nestjs-mcp on Nest + Fastify, add as a @Tool method of a provider',
  'mcp-express-decorated': 'nestjs-mcp on Nest + Express, add as a @Tool method of a provider',
  'mcp-fastify-throttled': 'nestjs-mcp on Nest + Fastify, the @Tool add behind McpThrottlerGuard',
  'mcp-express-throttled': 'nestjs-mcp on Nest + Express, the @Tool add behind McpThrottlerGuard',
  'nest-express-prototype': 'bare Nest + Express @Post, PrototypeExpressAdapter',
  'node-http': 'raw node:http handler',
  sdk: 'SDK v2 createMcpHandler',
  'rekog-fastify': '@rekog/mcp-nest 2.0.5 on Nest + Fastify',
  'rekog-express': '@rekog/mcp-nest 2.0.5 on Nest + Express',
} as const;
export type ServerName = keyof typeof SERVERS;

/** What a server process reports about itself over IPC. */
export interface ChildUsage {
  /** CPU time when asked, and again after the full GC that measures the live heap. */
  cpu: NodeJS.CpuUsage;
  cpuAfterGc: NodeJS.CpuUsage;
  rss: number;
  /** Live heap after a full GC: what requests left behind, if anything. */
  heapAfterGc: number;
  /** What the heap did since the previous report (allocation, promotion, collections). */
  gc: GcFigures;
}

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export const ADD_TOOL: ToolDefinition = {
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
};

/** Asks the client's name (an elicitation), then greets: the input round of the elicitation rows. */
export const ASK_NAME_TOOL: ToolDefinition = {
  name: 'ask_name',
  description: 'Asks the name of the user, then greets them',
  inputSchema: { type: 'object', properties: {} },
};

export const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

export const PROGRESS_TOOL: ToolDefinition = {
  name: 'progress',
  description: 'Reports progress three times, then answers',
  inputSchema: { type: 'object', properties: {} },
};

export function fillerTool(index: number): ToolDefinition {
  return {
    name: `search_${index}`,
    description: `Searches collection number ${index} for documents that match a query and returns the best matches`,
    inputSchema: {
      type: 'object',
      properties: {
        // Distinct per tool, as real schemas are, so no cache can share one compiled validator between them.
        query: { type: 'string', description: `Full-text query over collection ${index}` },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'How many matches to return' },
      },
      required: ['query'],
      additionalProperties: false,
    },
  };
}

/** `count` tool definitions: add, progress, then filler tools. */
export function toolDefinitions(count: number): ToolDefinition[] {
  const tools = [ADD_TOOL, PROGRESS_TOOL];
  for (let i = tools.length; i < count; i++) tools.push(fillerTool(i));
  return tools;
}

export const PROGRESS_STEPS = [1, 2, 3] as const;

export interface BenchCase {
  id: string;
  label: string;
  tools: number;
  method: string;
  params: Record<string, unknown>;
  /** `_meta` entries besides the envelope. */
  meta?: Record<string, unknown>;
  /** The tool `Mcp-Name` names. */
  name?: string;
  sse?: boolean;
  /**
   * Served in pages of the library's default size (100) instead of one page of everything. Only servers that
   * paginate run such a case: the one-page rows compare the same payload across servers, this one shows what a
   * client of this library gets by default.
   */
  paged?: boolean;
  /**
   * Sent as a 2025-11-25 client sends it once `initialize` is done: no `_meta` envelope, no `Mcp-Method` or
   * `Mcp-Name`, answered statelessly. Only servers with a 2025 leg run such a case, started with that leg on.
   */
  legacy?: boolean;
  /**
   * In a 2025-era session (`legacy.mode: 'stateful'`): the run initializes once, and every request carries the
   * `Mcp-Session-Id` it was given. With `legacy`; only this library runs it.
   */
  stateful?: boolean;
  /** The text of the answer's first content block (`5` for `add`). */
  expect?: string;
  /** Only these servers run the case. */
  servers?: readonly ServerName[];
}

/**
 * Servers that run only some cases. With the Redis backends, or UI resources and route tools, configured, a
 * `tools/call` that needs none of them must cost what it costs without: that is the one comparison they are for.
 */
export const SERVER_CASES: Partial<Record<ServerName, readonly string[]>> = {
  'mcp-fastify-redis': ['call'],
  'mcp-fastify-features': ['call'],
  'mcp-fastify-decorated': ['call', 'call-2025'],
  'mcp-express-decorated': ['call', 'call-2025'],
  'mcp-fastify-throttled': ['call'],
  'mcp-express-throttled': ['call'],
  'nest-fastify-checked': ['call'],
  'nest-express-checked': ['call'],
};

/** The servers that paginate lists. */
export const PAGING_SERVERS: readonly ServerName[] = ['mcp-fastify', 'mcp-express', 'mcp-express-prototype'];

/** The servers that serve 2025-era clients on the same endpoint (the peers' legacy legs are off for the other cases). */
export const LEGACY_SERVERS: readonly ServerName[] = [
  'mcp-fastify',
  'mcp-express',
  'mcp-fastify-decorated',
  'mcp-express-decorated',
  'sdk',
  'rekog-fastify',
  'rekog-express',
];

export const CASES: readonly BenchCase[] = [
  {
    id: 'call',
    label: 'tools/call add, 5 tools',
    tools: 5,
    method: 'tools/call',
    params: { name: 'add', arguments: { a: 2, b: 3 } },
    name: 'add',
  },
  {
    id: 'call-2025',
    label: 'tools/call add, 5 tools, 2025-11-25 client',
    tools: 5,
    method: 'tools/call',
    params: { name: 'add', arguments: { a: 2, b: 3 } },
    legacy: true,
  },
  {
    id: 'call-2025-stateful',
    label: 'tools/call add, 5 tools, 2025-11-25 client in a session',
    tools: 5,
    method: 'tools/call',
    params: { name: 'add', arguments: { a: 2, b: 3 } },
    legacy: true,
    stateful: true,
    servers: ['mcp-fastify', 'mcp-express'],
  },
  {
    id: 'call-1000',
    label: 'tools/call add, 1,000 tools',
    tools: 1000,
    method: 'tools/call',
    params: { name: 'add', arguments: { a: 2, b: 3 } },
    name: 'add',
  },
  {
    // The argument's size should cost its parse and nothing more: the same body goes to the bare route.
    id: 'call-1mb',
    label: 'tools/call with a 1 MB argument, 5 tools',
    tools: 5,
    method: 'tools/call',
    params: { name: 'search_2', arguments: { query: 'x'.repeat(1_000_000) } },
    name: 'search_2',
    expect: 'no matches',
    servers: ['mcp-fastify', 'mcp-express', 'nest-fastify', 'nest-express'],
  },
  { id: 'list', label: 'tools/list, 5 tools', tools: 5, method: 'tools/list', params: {} },
  { id: 'list-1000', label: 'tools/list, 1,000 tools', tools: 1000, method: 'tools/list', params: {} },
  {
    id: 'list-1000-paged',
    label: 'tools/list, 1,000 tools, default pages of 100',
    tools: 1000,
    method: 'tools/list',
    params: {},
    paged: true,
  },
  {
    id: 'progress',
    label: 'tools/call with 3 progress (SSE)',
    tools: 5,
    method: 'tools/call',
    params: { name: 'progress', arguments: {} },
    meta: { progressToken: 'bench' },
    name: 'progress',
    sse: true,
  },
];

/**
 * The argument-shape cases: `count_items` over an argument of `members` small objects (`{id, name}`), so what
 * grows is the number of members, not the size of one. Its schema checks only that `items` is an array: the row
 * measures what the library does per member, not a validation the tool's author asked for. Not in `CASES`:
 * `os/argument-shape.ts` runs them, and the instruction gauge counts them.
 */
export const COUNT_ITEMS_TOOL: ToolDefinition = {
  name: 'count_items',
  description: 'Counts the items it is given',
  inputSchema: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] },
};

export function shapeCase(members: number): BenchCase {
  const items = Array.from({ length: members }, (_, i) => ({ id: i, name: `item ${i}` }));
  const label = members >= 1000 ? `${members / 1000}k` : String(members);
  return {
    id: `shape-${label}`,
    label: `tools/call with ${members.toLocaleString('en-US')} objects in one argument`,
    tools: 5,
    method: 'tools/call',
    params: { name: COUNT_ITEMS_TOOL.name, arguments: { items } },
    name: COUNT_ITEMS_TOOL.name,
    expect: String(members),
  };
}

export function requestBody(benchCase: BenchCase): string {
  if (benchCase.legacy)
    return JSON.stringify({ jsonrpc: '2.0', id: 1, method: benchCase.method, params: benchCase.params });
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: benchCase.method,
    params: {
      ...benchCase.params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
        ...benchCase.meta,
      },
    },
  });
}

/** The headers of the case's request; `sessionId` is the session a `stateful` case runs in. */
export function requestHeaders(benchCase: BenchCase, sessionId?: string): Record<string, string> {
  if (benchCase.legacy) {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY_PROTOCOL_VERSION,
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    };
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': benchCase.method,
  };
  if (benchCase.name) headers['mcp-name'] = benchCase.name;
  return headers;
}

/** One request to a server's `/mcp` on the caller's keep-alive agent: the status, the session it names and the body. */
export function exchange(
  port: number,
  agent: Agent,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; sessionId?: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, sessionId: res.headers['mcp-session-id'] as string, text }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}
