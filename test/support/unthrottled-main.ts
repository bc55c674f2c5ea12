import 'reflect-metadata';
import { Injectable, Module, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpModule, McpThrottlerGuard, Tool } from '../../src/index.js';

/**
 * An app of `nestjs-mcp` run where `@nestjs/throttler` cannot be resolved (test/support/without-throttler.cjs):
 * it starts without the guard, and fails start-up with `UNTHROTTLED_USE_GUARD=1`.
 */
@Injectable()
class EchoTools {
  @Tool({ name: 'echo', description: 'Echoes' })
  echo(): string {
    return 'echo';
  }
}
if (process.env.UNTHROTTLED_USE_GUARD === '1') UseGuards(McpThrottlerGuard)(EchoTools);

@Module({ imports: [McpModule.forRoot({ name: 'unthrottled', version: '1.0.0' })], providers: [EchoTools] })
class UnthrottledModule {}

// Start-up errors are thrown, not logged: this app has no logger.
const app = await NestFactory.create(UnthrottledModule, { logger: false, abortOnError: false });
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.stdout.write(`listening on ${process.env.PORT}\n`);
