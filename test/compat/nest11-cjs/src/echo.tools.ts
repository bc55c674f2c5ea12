import { Injectable } from '@nestjs/common';
import { Args, McpContext, McpCtx, Tool } from 'nestjs-mcp';
import { AppService } from './app.service';

@Injectable()
export class EchoTools {
  constructor(private readonly appService: AppService) {}

  @Tool({
    name: 'echo',
    description: 'Echoes text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  })
  echo(@Args('text') text: string, @McpCtx() ctx: McpContext) {
    ctx.log('info', `echo ${text}`);
    return text;
  }

  @Tool({ name: 'hello', description: "The app's greeting, from the injected AppService" })
  hello() {
    return this.appService.getHello();
  }
}
