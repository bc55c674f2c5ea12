import { Test } from '@nestjs/testing';
import { createToolContext } from 'nestjs-mcp/testing';
import { AppService } from './app.service';
import { EchoTools } from './echo.tools';

describe('EchoTools', () => {
  it('echoes and logs through the MCP context', async () => {
    const module = await Test.createTestingModule({ providers: [AppService, EchoTools] }).compile();
    const { context, notifications } = createToolContext({ logLevel: 'info' });
    expect(module.get(EchoTools).echo('hi', context)).toBe('hi');
    expect(notifications).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'echo hi' } },
    ]);
  });
});
