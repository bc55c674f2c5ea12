import 'reflect-metadata';
import { Injectable, Logger, Module, type OnModuleDestroy } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Args, bootstrapStdio, McpCtx, McpModule, Tool, type McpContext } from '../../src/index.js';

/**
 * A stdio app that misbehaves the way real apps do: it logs through Nest's Logger (whose `log` goes to stdout)
 * and `console.log` at start-up and in a tool, and says on stderr when its `onModuleDestroy` hook ran, so a
 * test can see that stdout stays pure and that shutdown closes the app.
 */
@Injectable()
class NoisyTools implements OnModuleDestroy {
  private readonly logger = new Logger('NoisyTools');

  constructor() {
    this.logger.log('starting (Nest Logger)');
    console.log('starting (console.log)');
    console.info('starting (console.info)');
  }

  @Tool({ name: 'noisy', description: 'Logs everywhere, then answers' })
  noisy(): string {
    this.logger.log('noisy called');
    this.logger.warn('noisy warns');
    console.log('console.log in a tool');
    process.stdout.write('a raw write to stdout\n');
    return 'quiet answer';
  }

  @Tool({
    name: 'slow',
    description: 'Answers after a delay',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
  })
  async slow(@Args('ms') ms: number): Promise<string> {
    await sleep(ms);
    return `slept ${ms}`;
  }

  @Tool({
    name: 'confirm',
    description: 'Asks the client to confirm, with a question of the given size',
    inputSchema: { type: 'object', properties: { bytes: { type: 'number' } } },
  })
  async confirm(@Args('bytes') bytes: number, @McpCtx() ctx: McpContext): Promise<string> {
    const answer = await ctx.elicit('x'.repeat(bytes), { type: 'object', properties: {} });
    return `confirmed: ${answer.action}`;
  }

  onModuleDestroy(): void {
    process.stderr.write('FIXTURE onModuleDestroy ran\n');
    if (process.env.FIXTURE_FAIL_SHUTDOWN === '1') throw new Error('FIXTURE shutdown hook failed');
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'stdio-fixture', version: '1.0.0' })], providers: [NoisyTools] })
class FixtureModule {}

void bootstrapStdio(FixtureModule);
