import 'reflect-metadata';
import { Controller, Get, Injectable, Module, UseGuards } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Throttle, ThrottlerModule } from '@nestjs/throttler';
import {
  bootstrapStdio,
  McpModule,
  McpThrottlerGuard,
  Resource,
  RouteTool,
  Tool,
  ToolError,
  type McpModuleOptions,
} from '../../src/index.js';

/**
 * An app that limits its MCP tools with `McpThrottlerGuard`, run in a process of its own (`ThrottledProcess`):
 * `@nestjs/throttler` is CommonJS requiring the ESM-only Nest 12, which Node loads and Jest's sandbox does not.
 * `THROTTLED_TRANSPORT=stdio` serves it on stdio, else on `PORT` with `THROTTLED_ADAPTER`;
 * `THROTTLED_DEFAULT_LIMIT` is the module's default limit a minute (100).
 */
@Injectable()
class QuoteTools {
  @Tool({ name: 'quote', description: 'Quotes a price' })
  @Throttle({ default: { limit: 2, ttl: 60000 } })
  quote(): string {
    return 'quoted';
  }

  @Tool({ name: 'restock', description: 'Restocks a product' })
  @Throttle({ default: { limit: 2, ttl: 60000 } })
  restock(): string {
    return 'restocked';
  }

  @Tool({ name: 'report', description: 'Builds a report', taskSupport: 'optional' })
  @Throttle({ default: { limit: 1, ttl: 60000 } })
  report(): string {
    return 'reported';
  }

  @Tool({ name: 'forecast', description: 'Asks an upstream API for a forecast' })
  forecast(): string {
    throw new ToolError('the weather API is rate limited: try again in 30 seconds');
  }

  @Resource({ uri: 'prices://today', name: 'prices', mimeType: 'text/plain' })
  @Throttle({ default: { limit: 1, ttl: 60000 } })
  prices(): string {
    return '42';
  }
}

@Controller('ping')
class PingController {
  @Get()
  @Throttle({ default: { limit: 1, ttl: 60000 } })
  ping(): string {
    return 'pong';
  }

  @Get('stock')
  @RouteTool({ name: 'stock' })
  @Throttle({ default: { limit: 1, ttl: 60000 } })
  stock(): string {
    return 'in stock';
  }
}

const env = process.env;
const legacy = (env.THROTTLED_LEGACY ?? 'stateless') as NonNullable<McpModuleOptions['legacy']>['mode'];
// `THROTTLED_GLOBAL=1`: the guard is the app's APP_GUARD; else it is on the tools provider and the controller.
const global = env.THROTTLED_GLOBAL === '1';
if (!global) for (const target of [QuoteTools, PingController]) UseGuards(McpThrottlerGuard)(target);

// A module of its own: each module gets its own instance of a guard it uses.
@Module({ controllers: [PingController] })
class PingModule {}

@Module({
  imports: [
    PingModule,
    ThrottlerModule.forRoot({
      throttlers: [{ name: 'default', ttl: 60000, limit: Number(env.THROTTLED_DEFAULT_LIMIT ?? 100) }],
    }),
    McpModule.forRoot({
      name: 'throttled',
      version: '1.0.0',
      legacy: { mode: legacy },
      // tools/list runs each tool's guards to decide whether to show it.
      hideForbidden: true,
      // `report` answers at once: as a task every time, a refusal over its limit ends a task's round failed.
      tasks: { immediateResultMs: false },
      // One budget per user and tenant; over stdio there is no HTTP request.
      requestState: { bind: (req) => (req as { headers: Record<string, unknown> } | undefined)?.headers['x-tenant'] },
      auth: {
        resource: 'http://127.0.0.1/mcp',
        verify: (token: string) => (token.startsWith('user-') ? { sub: token } : null),
      },
    }),
  ],
  providers: global ? [QuoteTools, { provide: APP_GUARD, useClass: McpThrottlerGuard }] : [QuoteTools],
})
class ThrottledModule {}

if (env.THROTTLED_TRANSPORT === 'stdio') {
  // The route tool runs its route through the app's HTTP adapter, which listens nowhere.
  void bootstrapStdio(ThrottledModule, { http: true });
} else {
  const app =
    env.THROTTLED_ADAPTER === 'fastify'
      ? await NestFactory.create(ThrottledModule, new FastifyAdapter(), { logger: false })
      : await NestFactory.create(ThrottledModule, { logger: false });
  await app.listen(Number(env.PORT), '127.0.0.1');
  process.stdout.write(`listening on ${env.PORT}\n`);
}
