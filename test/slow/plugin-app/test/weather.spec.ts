import { Test } from '@nestjs/testing';
import { createMcpTestClient } from 'nestjs-mcp/testing';
import { AppModule } from '../src/app.module';

// Run by jest with ts-jest and `nestjs-mcp/plugin` as its AST transformer (jest.config.json): the app under test
// has the schemas the plugin derives, as its `nest build` does.
describe('WeatherTools under ts-jest with the plugin', () => {
  it('lists the derived schemas and refuses a wrong argument type, naming it', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const mcp = createMcpTestClient(app);
      const { result } = await mcp.listTools();
      const add = result?.tools.find((tool) => tool.name === 'add');
      expect(add).toEqual({
        name: 'add',
        description: 'Adds two numbers.',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
      });
      const forecast = result?.tools.find((tool) => tool.name === 'forecast');
      expect(forecast?.inputSchema.properties).toEqual({
        city: { type: 'string', description: 'The city to look up' },
        days: { type: 'number', description: 'How many days ahead, from today' },
        from: { type: 'string', format: 'date-time', description: 'Where the days start' },
        units: { type: 'string', enum: ['C', 'F'], description: 'the temperature scale', default: 'C' },
      });
      const wrong = await mcp.callTool('add', { a: 'one', b: 2 });
      expect(wrong.result?.isError).toBe(true);
      expect(wrong.result?.content).toEqual([{ type: 'text', text: 'Invalid argument "a": must be number (type)' }]);
    } finally {
      await app.close();
    }
  });
});
