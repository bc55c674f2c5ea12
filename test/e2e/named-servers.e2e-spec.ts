import 'reflect-metadata';
import { Injectable, type DynamicModule, type INestApplication } from '@nestjs/common';
import { getMcpServerToken, InjectMcpServer, McpConfigurationError, McpModule, MCPServer } from '../../src/index.js';
import { BillingModule, SupportModule } from '../support/billing-support.modules.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';

/** Asks for the servers every way a Nest user can. */
@Injectable()
class Consumer {
  constructor(
    readonly byClass: MCPServer,
    @InjectMcpServer() readonly byDefault: MCPServer,
    @InjectMcpServer('billing') readonly billing: MCPServer,
    @InjectMcpServer('support') readonly support: MCPServer,
  ) {}
}

/** Which server an injected `MCPServer` is, told by the tool only that server's modules declare. */
const serverOf = (server: MCPServer) =>
  server.hasTool('invoice') ? 'billing' : server.hasTool('ticket') ? 'support' : 'unknown';

const billing = { name: 'billing', version: '1.0.0', include: [BillingModule] };
const support = { name: 'support', version: '1.0.0', include: [SupportModule] };

const setups: Array<[string, DynamicModule[]]> = [
  [
    'forRoot',
    [
      McpModule.forRoot({ ...billing, path: '/billing/mcp' }),
      McpModule.forRoot({ ...support, path: '/support/mcp', isDefault: false }),
    ],
  ],
  [
    'forRootAsync',
    [
      McpModule.forRootAsync({ name: 'billing', path: '/billing/mcp', useFactory: async () => billing }),
      McpModule.forRootAsync({
        name: 'support',
        path: '/support/mcp',
        isDefault: false,
        useFactory: async () => support,
      }),
    ],
  ],
  [
    // The order that made the class token ambiguous before: the default server registered last.
    'forRoot, default registered second',
    [
      McpModule.forRoot({ ...support, path: '/support/mcp', isDefault: false }),
      McpModule.forRoot({ ...billing, path: '/billing/mcp' }),
    ],
  ],
];

describe.each(setups)('Two MCP servers injected by name (%s)', (_label, servers) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([...servers, BillingModule, SupportModule], [Consumer]);
  });
  afterAll(() => app.close());

  it('gives each named injection point the server it names', () => {
    const consumer = app.get(Consumer);
    expect(serverOf(consumer.billing)).toBe('billing');
    expect(serverOf(consumer.support)).toBe('support');
    expect(consumer.billing).not.toBe(consumer.support);
  });

  it('resolves getMcpServerToken(name) from the app to the same instances', () => {
    const consumer = app.get(Consumer);
    expect(app.get(getMcpServerToken('billing'))).toBe(consumer.billing);
    expect(app.get(getMcpServerToken('support'))).toBe(consumer.support);
  });

  it('agrees about the default server: constructor injection, @InjectMcpServer() and app.get(MCPServer)', () => {
    const consumer = app.get(Consumer);
    expect(consumer.byClass).toBe(consumer.billing);
    expect(consumer.byDefault).toBe(consumer.billing);
    expect(app.get(MCPServer)).toBe(consumer.billing);
    expect(app.get(getMcpServerToken())).toBe(consumer.billing);
  });

  it('serves what is registered through a named injection at that server only', async () => {
    const consumer = app.get(Consumer);
    consumer.support.addTool({
      name: 'escalate',
      description: 'Added at run time',
      inputSchema: { type: 'object' },
      handler: () => 'up',
    });
    const names = async (path: string) =>
      ((await createMcpTestClient(app, { path }).listTools()).result?.tools ?? []).map((t) => t.name);
    expect(await names('/support/mcp')).toEqual(['ticket', 'escalate']);
    expect(await names('/billing/mcp')).toEqual(['invoice']);
    consumer.support.removeTool('escalate');
  });
});

describe('The default server', () => {
  it('is the only server of a one-server app, whatever its name', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'solo', version: '1.0.0' })]);
    try {
      expect(app.get(MCPServer)).toBe(app.get(getMcpServerToken('solo')));
    } finally {
      await app.close();
    }
  });

  it('cannot be claimed by two servers: start-up fails with a configuration error naming the fix', async () => {
    const start = createApp([
      McpModule.forRoot({ ...billing, path: '/billing/mcp' }),
      McpModule.forRoot({ ...support, path: '/support/mcp' }),
      BillingModule,
      SupportModule,
    ]);
    await expect(start).rejects.toBeInstanceOf(McpConfigurationError);
    await expect(start).rejects.toThrow('set isDefault: false on all but one');
  });

  it('is not provided by a server that opts out, so asking for it fails instead of guessing', async () => {
    const app = await createApp([McpModule.forRoot({ ...support, isDefault: false }), SupportModule]);
    try {
      expect(() => app.get(MCPServer)).toThrow();
      expect(serverOf(app.get(getMcpServerToken('support')))).toBe('support');
    } finally {
      await app.close();
    }
  });
});
