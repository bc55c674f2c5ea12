import { jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client as ClientV1 } from 'mcp-sdk-v1/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from 'mcp-sdk-v1/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from 'mcp-sdk-v1/types.js';
import { installApart } from '../clients/support/installed-apart.js';
import { buildStdioEntries, STDIO_ENTRIES } from '../support/stdio-build.js';

/**
 * Real clients from npm launch the built conformance fixture as a child process, the way desktop clients do,
 * and talk to it over its stdin/stdout: nothing of ours sits between them.
 */
jest.setTimeout(60_000);
beforeAll(() => buildStdioEntries(), 180_000);

const entry = STDIO_ENTRIES.conformance;
const serverParams = { command: process.execPath, args: [entry], stderr: 'ignore' as const };

describe('SDK 1.32.2 (2025 era) with StdioClientTransport', () => {
  let client: ClientV1;
  const asked: string[] = [];

  beforeAll(async () => {
    client = new ClientV1(
      { name: 'sdk-v1-stdio', version: '1.0.0' },
      { capabilities: { elicitation: {}, sampling: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      asked.push(`elicit: ${request.params.message}`);
      // Left unanswered: the call is cancelled while the server waits for this reply.
      if (request.params.message === 'never mind')
        await new Promise((resolve) => extra.signal.addEventListener('abort', resolve));
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const first = request.params.messages[0].content;
      asked.push(`sample: ${'text' in first ? first.text : ''}`);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'Paris' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    });
    await client.connect(new StdioClientTransportV1(serverParams));
  });
  afterAll(() => client?.close());

  it('initializes in the 2025 era', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'nestjs-mcp-conformance', version: '1.0.0' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it('lists and calls tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['test_simple_text', 'test_elicitation', 'test_sampling']),
    );
    const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
  });

  it('answers an elicitation request the server writes to the pipe', async () => {
    const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(result.content).toEqual([
      { type: 'text', text: 'User response: <action: accept, content: {"username":"ada","email":"ada@example.com"}>' },
    ]);
    expect(asked).toContain('elicit: Who are you?');
  });

  it('answers a sampling request the server writes to the pipe', async () => {
    const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
    expect(result.content).toEqual([{ type: 'text', text: 'LLM response: Paris' }]);
    expect(asked).toContain('sample: Capital of France?');
  });

  it('cancels a call through its abort signal, and the connection goes on', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'test_elicitation', arguments: { message: 'never mind' } }, undefined, {
      signal: controller.signal,
    });
    while (!asked.includes('elicit: never mind')) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
    expect(result.isError).toBeFalsy();
  });
});

describe('@modelcontextprotocol/client 2.4.0 with StdioClientTransport', () => {
  it('pinned to 2026-07-28: discovers, lists, and completes an input_required round through its elicitation handler', async () => {
    const client = new Client(
      { name: 'sdk-v2-stdio', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect(new StdioClientTransport(serverParams));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('test_input_required_result_elicitation');
      const result = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('Ada');
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('with its defaults (the 2025 handshake): connects, lists and calls', async () => {
    const client = new Client({ name: 'sdk-v2-stdio-defaults', version: '1.0.0' });
    await client.connect(new StdioClientTransport(serverParams));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      expect(client.getServerVersion()).toMatchObject({ name: 'nestjs-mcp-conformance' });
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(10);
      const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    } finally {
      await client.close();
    }
  });
});

describe('Inspector 2.12 CLI launching the server', () => {
  let launcher: string;
  let home: string;
  beforeAll(async () => {
    // Installed apart (test/clients/installed-apart/inspector), on first use.
    launcher = join(await installApart('inspector'), 'node_modules/mcp-inspector/clients/launcher/build/index.js');
    // The Inspector keeps a catalog and secrets under ~/.mcp-inspector.
    home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
  }, 600_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  const inspect = async (era: 'modern' | 'legacy', ...args: string[]) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [launcher, '--cli', '--protocol-era', era, process.execPath, entry, ...args],
      {
        env: { ...process.env, HOME: home },
      },
    );
    return JSON.parse(stdout) as Record<string, any>;
  };

  it.each(['modern', 'legacy'] as const)('--protocol-era %s: tools/list and tools/call', async (era) => {
    const listed = await inspect(era, '--method', 'tools/list');
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toContain('test_simple_text');
    const called = await inspect(era, '--method', 'tools/call', '--tool-name', 'test_simple_text');
    expect(called.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    // Only a 2026-07-28 result carries the server's identity in _meta: the era really differs.
    expect(called._meta?.['io.modelcontextprotocol/serverInfo']).toEqual(
      era === 'modern' ? { name: 'nestjs-mcp-conformance', version: '1.0.0' } : undefined,
    );
  });
});
