import { Injectable } from '@nestjs/common';
import { Args, McpContext, McpCtx, Tool } from 'nestjs-mcp';
import { AppService } from './app.service';

@Injectable()
export class EchoTools {
  constructor(private readonly appService: AppService) {}

  // No hand-written schema: nestjs-mcp/plugin derives it (nest-cli.json for `nest build`, ts-jest's
  // astTransformers for the specs).
  /** Echoes text */
  @Tool({ name: 'echo' })
  echo(@Args('text') text: string, @McpCtx() ctx: McpContext) {
    ctx.log('info', `echo ${text}`);
    return text;
  }

  @Tool({ name: 'hello', description: "The app's greeting, from the injected AppService" })
  hello() {
    return this.appService.getHello();
  }
}
