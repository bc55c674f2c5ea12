import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { importApart } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import {
  erasOfToolCalls,
  inputRequiredResults,
  postedReplyStatuses,
  serverErrors,
  serverRequests,
  sessionIds,
} from './support/wire-log.js';

/**
 * The Vercel AI SDK's MCP client. 1.x opens with `initialize 2025-11-25`; 2.x probes `server/discover` first
 * and speaks 2026-07-28 where it can (and 2025 with `protocolVersionDiscovery: false`). It answers form
 * elicitation in both eras (a request on the call stream, or an input_required result) and nothing else.
 */
interface AiTool {
  execute(
    args: Record<string, unknown>,
    options: { toolCallId: string; messages: [] },
  ): Promise<{ content?: unknown; isError?: boolean }>;
}
interface AiClient {
  tools(): Promise<Record<string, AiTool>>;
  onElicitationRequest(
    schema: unknown,
    handler: (request: { params: { message: string } }) => { action: 'accept'; content: Record<string, unknown> },
  ): void;
  close(): Promise<void>;
}
interface AiSdk {
  createMCPClient(config: {
    transport: { type: 'http'; url: string };
    capabilities?: Record<string, unknown>;
    protocolVersionDiscovery?: boolean;
  }): Promise<AiClient>;
  ElicitationRequestSchema: unknown;
}
/** Both majors, installed apart (installed-apart/ai-sdk). */
type AiSdks = Record<'v1' | 'v2', AiSdk>;

// Each version's own config and client types differ in what these tests do not touch.
const CLIENTS = [
  {
    label: '1.0.102 (default)',
    version: 'v1',
    config: {},
    era: { era: 'legacy', version: '2025-11-25', header: '2025-11-25' },
  },
  {
    label: '2.0.99 (default: probes server/discover)',
    version: 'v2',
    config: {},
    era: { era: 'modern', version: '2026-07-28', header: '2026-07-28' },
  },
  {
    label: '2.0.99 (protocolVersionDiscovery: false)',
    version: 'v2',
    config: { protocolVersionDiscovery: false },
    era: { era: 'legacy', version: '2025-11-25', header: '2025-11-25' },
  },
] as const;

describe.each(CLIENTS)('@ai-sdk/mcp $label', ({ version, config, era }) => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let client: AiClient;
  const asked: string[] = [];

  beforeAll(async () => {
    const sdk = (await importApart<AiSdks>('ai-sdk'))[version];
    app = await startClientsApp();
    proxy = await RecordingProxy.start(app.url);
    client = await sdk.createMCPClient({
      transport: { type: 'http', url: proxy.url },
      capabilities: { elicitation: {} },
      ...config,
    });
    client.onElicitationRequest(sdk.ElicitationRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
  }, 600_000);
  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await app?.close();
  });

  it('lists and calls a tool', async () => {
    const tools = await client.tools();
    expect(Object.keys(tools)).toEqual(TOOL_NAMES);
    const result = await tools.greet.execute({ name: 'Ada' }, { toolCallId: '1', messages: [] });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(result.isError).toBeFalsy();
  });

  it('completes an elicitation round through its handler', async () => {
    const tools = await client.tools();
    const result = await tools.delete_file.execute({ path: '/tmp/a' }, { toolCallId: '2', messages: [] });
    expect(result.content).toEqual([{ type: 'text', text: 'Deleted /tmp/a' }]);
    expect(asked).toEqual(['Delete /tmp/a?']);
  });

  it(`used the ${era.era} era at ${era.version} and never saw a session`, () => {
    expect(erasOfToolCalls(proxy.exchanges)).toEqual([era]);
    if (era.era === 'modern') {
      expect(inputRequiredResults(proxy.exchanges)).toBe(1);
      expect(serverRequests(proxy.exchanges)).toEqual([]);
    } else {
      expect(serverRequests(proxy.exchanges)).toEqual(['elicitation/create']);
      expect(postedReplyStatuses(proxy.exchanges)).toEqual([202]);
    }
    expect(sessionIds(proxy.exchanges)).toEqual([]);
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });
});
