import 'reflect-metadata';
import { createMcpTestClient, mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { httpPost } from '../../src/testing/http-post.js';
import { BackendProcess, tokenFor, type BackendProcessOptions } from '../support/backend-process.js';
import { HTTP_ADAPTERS } from '../support/create-app.js';

// Above Nest's own 100 KB JSON limit, well under the endpoint's 4 MiB.
const BIG_NOTE = 'x'.repeat(200 * 1024);

interface Layout {
  name: string;
  options: Omit<BackendProcessOptions, 'adapter'>;
  /** Where the endpoint is, and a path it must not be at. */
  path: string;
  absent: string;
  /** Headers the app's versioning reads. */
  headers?: Record<string, string>;
}

const LAYOUTS: Layout[] = [
  {
    name: 'URI versioning with defaultVersion',
    options: { versioning: 'uri' },
    path: '/api/mcp',
    absent: '/api/v1/mcp',
  },
  {
    name: 'URI versioning and http.version "1"',
    options: { versioning: 'uri', mcpVersion: '1' },
    path: '/api/v1/mcp',
    absent: '/api/mcp',
  },
  {
    name: 'header versioning with defaultVersion',
    options: { versioning: 'header' },
    path: '/api/mcp',
    absent: '/api/v1/mcp',
    headers: { 'x-api-version': '7' },
  },
  {
    name: 'media-type versioning with defaultVersion',
    options: { versioning: 'media-type' },
    path: '/api/mcp',
    absent: '/api/v1/mcp',
    headers: { accept: 'application/json;v=3, text/event-stream' },
  },
];

/**
 * However the app versions its routes, the endpoint keeps its own body handling, limits and JSON-RPC errors:
 * version-neutral by default, under a version when `http.version` says so.
 */
describe.each(HTTP_ADAPTERS.flatMap((adapter) => LAYOUTS.map((layout) => [adapter, layout.name, layout] as const)))(
  'the MCP endpoint on %s under %s',
  (adapter, _name, layout) => {
    let backend: BackendProcess;
    let authorization: string;

    beforeAll(async () => {
      backend = await BackendProcess.start({ adapter, ...layout.options });
      authorization = `Bearer ${await tokenFor('ada')}`;
    }, 120_000);
    afterAll(() => backend?.stop());

    const post = (path: string, body: string, method = 'tools/call') =>
      httpPost(`${backend.origin}${path}`, { ...mcpHeaders({ method }), ...layout.headers, authorization }, body);

    it(`is served at ${layout.path}`, async () => {
      const client = createMcpTestClient(backend.origin, {
        path: layout.path,
        headers: { ...layout.headers, authorization },
      });
      const res = await client.callTool('create_order', { customer: 'ada', item: 'lamp', note: BIG_NOTE });
      expect(res.status).toBe(200);
      expect(res.result?.content).toEqual([{ type: 'text', text: 'created' }]);
      const elsewhere = await post(layout.absent, JSON.stringify(mcpMessage('server/discover')), 'server/discover');
      expect(elsewhere.status).toBe(404);
    });

    it("answers a malformed body with its own -32700, not the app parser's 400 page", async () => {
      const res = await post(layout.path, '{"jsonrpc": "2.0", "id": 1,');
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    });
  },
);
