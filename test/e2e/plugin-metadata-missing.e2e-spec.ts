import 'reflect-metadata';
import { Injectable, type Type } from '@nestjs/common';
import { IsString } from 'class-validator';
import { z } from 'zod';
import { Args, McpConfigurationError, McpContext, McpCtx, McpModule, Tool } from '../../src/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

// Tools written the plugin's way (typed parameters, no schema) in a build that ran no plugin and loaded no
// metadata file, as an SWC build, a vitest spec or a transpile-only jest leaves them: without the check they are
// published taking no arguments, and every call that passes one is refused.

interface Query {
  city: string;
}

class BookingDto {
  @IsString()
  room!: string;
}

@Injectable()
class PlainTools {
  @Tool()
  find(@Args() query: Query) {
    return query.city;
  }

  @Tool()
  add(@Args('a') a: number, @Args('b') b: number) {
    return a + b;
  }

  // No parameter decorator: the kernel's arguments come first, typed here by a class.
  @Tool()
  book(args: BookingDto) {
    return args.room;
  }
}

/** Tools that take no arguments, or say their schema themselves: none of them needs the plugin. */
@Injectable()
class SelfDescribedTools {
  @Tool()
  ping() {
    return 'pong';
  }

  @Tool()
  whoami(_args: unknown, _responses: unknown, ctx: McpContext) {
    return String(ctx instanceof McpContext);
  }

  @Tool()
  traced(@McpCtx() ctx: McpContext) {
    return String(ctx instanceof McpContext);
  }

  @Tool({ inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } })
  forecast(@Args('city') city: string) {
    return city;
  }

  @Tool({ inputSchema: z.object({ n: z.number() }) })
  double(@Args('n') n: number) {
    return String(n * 2);
  }

  @Tool({ inputSchema: BookingDto })
  reserve(@Args() booking: BookingDto) {
    return booking.room;
  }

  // Its own pipes judge what is sent: nothing is refused before it runs.
  @Tool({ validateArguments: false })
  echo(@Args('text') text: string) {
    return text;
  }
}

/** The same kind of tool, described by a metadata file as the Nest CLI generates it for an SWC build. */
@Injectable()
class LoadedTools {
  @Tool()
  subtract(@Args('a') a: number, @Args('b') b: number) {
    return a - b;
  }
}

const generatedMetadata = async () => ({
  'nestjs-mcp/plugin': {
    mcp: [
      [
        Promise.resolve({ LoadedTools }),
        {
          LoadedTools: {
            subtract: {
              kind: 'tool',
              inputSchema: {
                type: 'object',
                properties: { a: { type: 'number' }, b: { type: 'number' } },
                required: ['a', 'b'],
              },
            },
          },
        },
      ],
    ],
  },
});

const server = () => McpModule.forRoot({ name: 'plain', version: '1.0.0' });

async function startupError(providers: Type<unknown>[]): Promise<unknown> {
  try {
    const app = await createApp([server()], providers);
    await app.close();
  } catch (error) {
    return error;
  }
  throw new Error('start-up succeeded');
}

describe('Plain typed tools without their plugin metadata', () => {
  it('fail start-up naming every such tool and the line that loads the metadata', async () => {
    const error = await startupError([PlainTools, SelfDescribedTools]);
    expect(error).toBeInstanceOf(McpConfigurationError);
    const message = (error as Error).message;
    expect(message).toMatch(
      /^PlainTools\.find, PlainTools\.add, PlainTools\.book take typed arguments but have no input schema/,
    );
    expect(message).toContain('`await McpModule.loadPluginMetadata(metadata);`');
    expect(message).toContain('"nestjs-mcp/plugin"');
    expect(message).not.toContain('SelfDescribedTools');
  });

  it('a placeholder metadata file (an empty export) loads, and describes nothing', async () => {
    await expect(McpModule.loadPluginMetadata(async () => ({}))).resolves.toBeUndefined();
    const error = await startupError([PlainTools]);
    expect((error as Error).message).toMatch(/^PlainTools\.find, PlainTools\.add, PlainTools\.book take/);
  });

  it.each(HTTP_ADAPTERS)(
    'start on %s when the tools take no arguments or write their schema, and when the metadata is loaded',
    async (adapter) => {
      await McpModule.loadPluginMetadata(generatedMetadata);
      const app = await createApp([server()], [SelfDescribedTools, LoadedTools], adapter);
      try {
        const mcp = createMcpTestClient(app);
        const { result } = await mcp.listTools();
        const tools = Object.fromEntries(result!.tools.map((tool) => [tool.name, tool.inputSchema]));
        expect(tools.subtract).toEqual({
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        });
        expect((await mcp.callTool('subtract', { a: 5, b: 2 })).result?.content).toEqual([{ type: 'text', text: '3' }]);
        expect((await mcp.callTool('whoami', {})).result?.content).toEqual([{ type: 'text', text: 'true' }]);
        expect((await mcp.callTool('traced', {})).result?.content).toEqual([{ type: 'text', text: 'true' }]);
        expect((await mcp.callTool('double', { n: 4 })).result?.content).toEqual([{ type: 'text', text: '8' }]);
        expect((await mcp.callTool('echo', { text: 'hi' })).result?.content).toEqual([{ type: 'text', text: 'hi' }]);
        expect((await mcp.callTool('reserve', { room: 'A1' })).result?.content).toEqual([{ type: 'text', text: 'A1' }]);
      } finally {
        await app.close();
      }
    },
  );
});
