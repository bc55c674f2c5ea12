import { Inject, Injectable, Module, VersioningType, type INestApplication, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Args, McpCtx, McpModule, MCPServer, Tool, type McpContext } from '../../src/index.js';
import { AppModule as BasicAppModule } from '../../examples/basic/app.module.js';
import { WeatherService } from '../../examples/basic/weather.service.js';
import { WeatherTools } from '../../examples/basic/weather.tools.js';
import type { HttpAdapterName } from './create-app.js';

/** Tools the playground tests need beside the example's: one that asks for a confirmation, one that runs as a task. */
@Injectable()
export class PlaygroundExtraTools {
  @Tool({
    name: 'delete_note',
    description: 'Deletes a note once the user confirms',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
    annotations: { destructiveHint: true },
  })
  async deleteNote(@Args('title') title: string, @McpCtx() ctx: McpContext): Promise<string> {
    const answer = await ctx.elicit(`Delete "${title}"?`, {
      type: 'object',
      properties: { confirm: { type: 'boolean', description: 'Yes, delete it' } },
      required: ['confirm'],
    });
    return answer.action === 'accept' && answer.content?.confirm === true ? `Deleted "${title}"` : 'Nothing deleted';
  }

  @Tool({
    name: 'build_report',
    description: 'Builds a report in a few steps, as a task',
    inputSchema: {
      type: 'object',
      properties: { steps: { type: 'integer', minimum: 1, maximum: 5 } },
      required: ['steps'],
    },
    taskSupport: 'required',
  })
  async buildReport(@Args('steps') steps: number, @McpCtx() ctx: McpContext): Promise<string> {
    for (let step = 1; step <= steps; step++) {
      ctx.reportProgress({ progress: step, total: steps, message: `step ${step} of ${steps}` });
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return `Report ready after ${steps} steps`;
  }
}

/** The example app (`npm start`), playground on, with the extra tools. */
@Module({ imports: [BasicAppModule], providers: [PlaygroundExtraTools] })
export class PlaygroundExampleModule {}

/** The example's tools behind the module's OAuth resource server: `secret-token` is the one good token. */
@Module({
  imports: [
    McpModule.forRoot({
      name: 'weather-auth',
      version: '1.0.0',
      playground: true,
      auth: {
        resource: 'http://127.0.0.1/mcp',
        scopesSupported: ['weather:read'],
        verify: (token: string) => (token === 'secret-token' ? { sub: 'developer', scopes: ['weather:read'] } : false),
      },
    }),
  ],
  providers: [WeatherService, WeatherTools],
})
export class PlaygroundAuthModule {}

/** The example's tools under `/api/v1/mcp`: a global prefix, URI versioning and an endpoint version. */
@Module({
  imports: [McpModule.forRoot({ name: 'weather-v1', version: '1.0.0', playground: true, http: { version: '1' } })],
  providers: [WeatherService, WeatherTools],
})
export class PlaygroundVersionedModule {}

/** The example's tools without the playground. */
@Module({
  imports: [McpModule.forRoot({ name: 'weather-plain', version: '1.0.0' })],
  providers: [WeatherService, WeatherTools],
})
export class PlaygroundOffModule {}

export interface StartedApp {
  app: INestApplication;
  origin: string;
  /** What reached the server, in order: `method name`. */
  served: string[];
}

/** Starts an app on an ephemeral loopback port; `setup` runs before it listens (prefix, versioning). */
export async function startApp(
  module: Type<unknown>,
  adapter: HttpAdapterName,
  setup?: (app: INestApplication) => void,
): Promise<StartedApp> {
  const app =
    adapter === 'express'
      ? await NestFactory.create(module, { logger: false })
      : await NestFactory.create(module, new FastifyAdapter(), { logger: false });
  setup?.(app);
  const served: string[] = [];
  app.get(MCPServer).intercept(async (call, next) => {
    served.push(`${call.method} ${call.name ?? call.uri ?? ''}`.trim());
    return next();
  });
  await app.listen(0, '127.0.0.1');
  const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, origin, served };
}

export function versioned(app: INestApplication): void {
  app.setGlobalPrefix('api');
  app.enableVersioning({ type: VersioningType.URI });
}

/** A thousand tools, `tool_0` to `tool_999`, each adding one to `n`: a list far longer than the window. */
@Injectable()
class ThousandTools {
  constructor(@Inject(MCPServer) private readonly server: MCPServer) {}
  onModuleInit(): void {
    for (let i = 0; i < 1_000; i++)
      this.server.addTool({
        name: `tool_${i}`,
        description: `Adds one to n (tool ${i} of a thousand)`,
        inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        handler: ({ n }: { n: number }) => String(n + 1),
      });
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'thousand', version: '1.0.0', playground: true })],
  providers: [ThousandTools],
})
export class PlaygroundThousandToolsModule {}
