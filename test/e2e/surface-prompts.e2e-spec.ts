import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Content, MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';

/** The declared prompt, which prompts/list must publish as it is. */
const GREET = {
  name: 'greet',
  title: 'Greeting',
  description: 'Greets someone',
  arguments: [
    { name: 'name', description: 'Who to greet', required: true },
    { name: 'tone', required: false },
  ],
};
const CITIES = Array.from({ length: 150 }, (_, i) => `city-${String(i).padStart(3, '0')}`);

describe('prompts and completion over HTTP', () => {
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'prompts', version: '1.0.0' })]);
    mcp = createMcpTestClient(app);
    const server = app.get(MCPServer);
    server.addPrompt({
      ...GREET,
      handler: ({ name, tone }) => `Say hello to ${name}${tone ? ` in a ${tone} tone` : ''}.`,
      complete: { tone: (value) => ['formal', 'friendly', 'funny'].filter((t) => t.startsWith(value)) },
    });
    server.addPrompt({
      name: 'review',
      description: 'Two messages with an embedded document',
      handler: () => [
        { role: 'user', content: Content.textResource('docs://spec', 'The spec.') },
        { role: 'assistant', content: Content.text('I have read it.') },
      ],
    });
    server.addResourceTemplate({
      uriTemplate: 'weather://{city}',
      name: 'weather',
      handler: (_uri, { city }) => `Sunny in ${city}`,
      complete: { city: (value) => CITIES.filter((c) => c.startsWith(value)) },
    });
  });
  afterAll(() => app.close());

  it('lists prompts with their arguments', async () => {
    const res = await mcp.post(mcpMessage('prompts/list'));
    expect(res.status).toBe(200);
    expect(res.body.result.prompts).toEqual([
      GREET,
      { name: 'review', description: 'Two messages with an embedded document' },
    ]);
  });

  it('gets a prompt with its arguments filled in', async () => {
    const res = await mcp.post(
      mcpMessage('prompts/get', { name: 'greet', arguments: { name: 'Ada', tone: 'formal' } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      resultType: 'complete',
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada in a formal tone.' } }],
    });
  });

  it('returns several messages with embedded resources as given', async () => {
    const res = await mcp.post(mcpMessage('prompts/get', { name: 'review' }));
    expect(res.status).toBe(200);
    expect(res.body.result.messages).toEqual([
      {
        role: 'user',
        content: { type: 'resource', resource: { uri: 'docs://spec', mimeType: 'text/plain', text: 'The spec.' } },
      },
      { role: 'assistant', content: { type: 'text', text: 'I have read it.' } },
    ]);
  });

  it('answers a missing required argument with -32602', async () => {
    const res = await mcp.post(mcpMessage('prompts/get', { name: 'greet', arguments: { tone: 'formal' } }));
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: -32602, message: 'Missing required argument: name' });
  });

  it('answers an unknown prompt with -32602', async () => {
    const res = await mcp.post(mcpMessage('prompts/get', { name: 'nope' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: -32602, message: 'Unknown prompt: nope' });
  });

  it('rejects non-string prompt arguments', async () => {
    const res = await mcp.post(mcpMessage('prompts/get', { name: 'greet', arguments: { name: 3 } }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32602);
  });

  it('completes a prompt argument', async () => {
    const res = await mcp.post(
      mcpMessage('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'tone', value: 'f' },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.result.completion).toEqual({ values: ['formal', 'friendly', 'funny'], total: 3, hasMore: false });
  });

  it('completes a template variable with at most 100 values, the total and hasMore', async () => {
    const res = await mcp.post(
      mcpMessage('completion/complete', {
        ref: { type: 'ref/resource', uri: 'weather://{city}' },
        argument: { name: 'city', value: 'city-' },
      }),
    );
    expect(res.status).toBe(200);
    const { completion } = res.body.result;
    expect(completion.values).toHaveLength(100);
    expect(completion.values[0]).toBe('city-000');
    expect(completion.total).toBe(150);
    expect(completion.hasMore).toBe(true);
  });

  it('answers an argument without a completer with no values', async () => {
    const res = await mcp.post(
      mcpMessage('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'name', value: 'A' },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.result.completion).toEqual({ values: [], total: 0, hasMore: false });
  });

  it('answers completion for an unknown prompt with -32602', async () => {
    const res = await mcp.post(
      mcpMessage('completion/complete', {
        ref: { type: 'ref/prompt', name: 'nope' },
        argument: { name: 'x', value: '' },
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32602);
  });

  it('advertises completions in discover', async () => {
    const res = await mcp.post(mcpMessage('server/discover'));
    expect(res.status).toBe(200);
    expect(res.body.result.capabilities.completions).toEqual({});
  });
});
