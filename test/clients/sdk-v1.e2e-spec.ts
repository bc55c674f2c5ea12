import { Client } from 'mcp-sdk-v1/client/index.js';
import { StreamableHTTPClientTransport } from 'mcp-sdk-v1/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from 'mcp-sdk-v1/types.js';
import {
  CLIENT_ROOT,
  MODEL_REPLY,
  startClientsApp,
  textOf,
  TOOL_NAMES,
  type ClientsApp,
} from './support/clients-app.js';
import type { HttpAdapterName } from '../support/create-app.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { erasOfToolCalls, postedReplyStatuses, serverErrors, serverRequests, sessionIds } from './support/wire-log.js';

/**
 * `@modelcontextprotocol/sdk` 1.x, the client most deployed code still runs: it opens with `initialize` and
 * knows nothing of 2026-07-28. 1.32.2 is the last 1.x; 1.10.0 (2024-11-05, no `MCP-Protocol-Version` header
 * ever, no elicitation) is the oldest with Streamable HTTP. Both answer the server's requests on the POST's
 * SSE stream by POSTing their replies back, with no session.
 */
interface SdkV1 {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  CreateMessageRequestSchema: typeof CreateMessageRequestSchema;
  ListRootsRequestSchema: typeof ListRootsRequestSchema;
  ElicitRequestSchema?: typeof ElicitRequestSchema;
}

// The calls used below are the same in both versions; 1.10.0's own types differ only in what it lacks.
const loadV1_10 = async (): Promise<SdkV1> =>
  ({
    ...(await import('mcp-sdk-v1-10/client/index.js')),
    ...(await import('mcp-sdk-v1-10/client/streamableHttp.js')),
    ...(await import('mcp-sdk-v1-10/types.js')),
  }) as unknown as SdkV1;

const loadV1_32 = async (): Promise<SdkV1> => ({
  Client,
  StreamableHTTPClientTransport,
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  ElicitRequestSchema,
});

// The server requests ride the call's SSE stream, written by the driver on each adapter's raw response: both are driven.
const SDKS: Array<{
  version: string;
  adapter: HttpAdapterName;
  load: () => Promise<SdkV1>;
  era: { version: string; header: string | undefined };
}> = [
  { version: '1.32.2', adapter: 'express', load: loadV1_32, era: { version: '2025-11-25', header: '2025-11-25' } },
  { version: '1.32.2', adapter: 'fastify', load: loadV1_32, era: { version: '2025-11-25', header: '2025-11-25' } },
  { version: '1.10.0', adapter: 'express', load: loadV1_10, era: { version: '2024-11-05', header: undefined } },
];

describe.each(SDKS)(
  '@modelcontextprotocol/sdk $version (2025 era, stateless) on $adapter',
  ({ version, adapter, load, era }) => {
    let app: ClientsApp;
    let proxy: RecordingProxy;
    let sdk: SdkV1;
    let client: Client;
    let transport: StreamableHTTPClientTransport;
    const asked: string[] = [];

    beforeAll(async () => {
      app = await startClientsApp(adapter);
      proxy = await RecordingProxy.start(app.url);
      sdk = await load();
      const capabilities = { sampling: {}, roots: {}, ...(sdk.ElicitRequestSchema ? { elicitation: {} } : {}) };
      client = new sdk.Client({ name: `sdk-${version}-e2e`, version }, { capabilities });
      client.setRequestHandler(sdk.CreateMessageRequestSchema, async (request) => {
        asked.push(`sampling: ${request.params.messages.map((m) => textOf(m.content)).join(' ')}`);
        return { role: 'assistant', content: { type: 'text', text: MODEL_REPLY }, model: 'test-model' };
      });
      client.setRequestHandler(sdk.ListRootsRequestSchema, async () => ({
        roots: [{ uri: CLIENT_ROOT, name: 'project' }],
      }));
      if (sdk.ElicitRequestSchema) {
        client.setRequestHandler(sdk.ElicitRequestSchema, async (request) => {
          asked.push(`elicitation: ${request.params.message}`);
          return { action: 'accept', content: { confirm: true } };
        });
      }
      transport = new sdk.StreamableHTTPClientTransport(new URL(proxy.url));
      await client.connect(transport);
    });
    afterAll(async () => {
      await client?.close();
      await proxy?.close();
      await app?.close();
    });

    it('connects with initialize and is given no session', () => {
      expect(client.getServerVersion()).toMatchObject({ name: 'clients-e2e', version: '1.0.0' });
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      expect(client.getInstructions()).toBe('Tools for the client e2e suite');
      expect(transport.sessionId).toBeUndefined();
    });

    it('lists and calls a tool', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    });

    it('answers a sampling request sent on the call stream, and the call completes with the answer', async () => {
      asked.length = 0;
      const result = await client.callTool({ name: 'ask_model', arguments: { question: 'Capital of France?' } });
      expect(result.content).toEqual([{ type: 'text', text: `The model said: ${MODEL_REPLY}` }]);
      expect(asked).toEqual(['sampling: Capital of France?']);
    });

    it('answers a roots request sent on the call stream', async () => {
      const result = await client.callTool({ name: 'client_roots', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: `Roots: ${CLIENT_ROOT}` }]);
    });

    if (version === '1.10.0') {
      it('refuses an elicitation request it cannot answer, and the call ends with a clean tool error, not a hang', async () => {
        const result = await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/a' } });
        expect(result.isError).toBe(true);
        expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('elicitation/create') }]);
      });
    }
    if (version !== '1.10.0') {
      it('answers an elicitation request sent on the call stream, and the call completes with the answer', async () => {
        asked.length = 0;
        const result = await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/a' } });
        expect(result.content).toEqual([{ type: 'text', text: 'Deleted /tmp/a' }]);
        expect(asked).toEqual(['elicitation: Delete /tmp/a?']);
      });
    }

    it(`used the 2025 era at ${era.version} throughout, with server requests and posted replies, and never a session`, () => {
      expect(erasOfToolCalls(proxy.exchanges)).toEqual([{ era: 'legacy', ...era }]);
      const expectedRequests = ['sampling/createMessage', 'roots/list', 'elicitation/create'];
      expect(serverRequests(proxy.exchanges)).toEqual(expectedRequests);
      expect(postedReplyStatuses(proxy.exchanges)).toEqual(expectedRequests.map(() => 202));
      expect(sessionIds(proxy.exchanges)).toEqual([]);
      expect(serverErrors(proxy.exchanges)).toEqual([]);
    });
  },
);
