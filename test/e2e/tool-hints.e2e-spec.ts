import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { McpModule, MCPServer, Tool } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';

@Injectable()
class SearchTools {
  @Tool({ description: 'Searches the docs', _meta: { 'anthropic/alwaysLoad': true } })
  search_docs() {
    return 'found';
  }

  @Tool({ description: 'Exports a report', _meta: { 'anthropic/searchHint': 'csv export report download' } })
  export_report() {
    return 'exported';
  }
}

/** What hosts that load tools lazily read (Claude Code's deferred loading), and the order they rely on. */
describe('Tool hints for hosts', () => {
  it('sends the _meta hints set on a tool, and lists tools in the same order every time', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'hints', version: '1.0.0' })], [SearchTools]);
    try {
      app.get(MCPServer).registerTool('zz_late', 'Added at run time', { type: 'object' }, () => 'late');
      const mcp = createMcpTestClient(app);
      const list = async () => (await mcp.post(mcpMessage('tools/list'))).body.result.tools;
      const tools = await list();
      expect(tools.map((t: { name: string }) => t.name)).toEqual(['search_docs', 'export_report', 'zz_late']);
      expect(tools[0]._meta).toEqual({ 'anthropic/alwaysLoad': true });
      expect(tools[1]._meta).toEqual({ 'anthropic/searchHint': 'csv export report download' });
      expect(await list()).toEqual(tools);
    } finally {
      await app.close();
    }
  });

  it('refuses at start-up a tool name hosts would reject (1-128 of [A-Za-z0-9_.-])', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'names', version: '1.0.0' })]);
    try {
      const server = app.get(MCPServer);
      for (const name of ['has space', 'x'.repeat(129), '', 'emoji🙂'])
        expect(() => server.registerTool(name, 'bad', { type: 'object' }, () => '')).toThrow(/name/);
      expect(() => server.registerTool('a'.repeat(128), 'ok', { type: 'object' }, () => '')).not.toThrow();
    } finally {
      await app.close();
    }
  });
});
