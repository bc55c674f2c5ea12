import { RouteToolsExplorer } from '../../src/nest/module/route-tools.explorer.js';
import 'reflect-metadata';
import { Injectable, Module, Scope, type LoggerService } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import { McpConfigurationError, McpRegistrationError, Prompt, Resource, Tool } from '../../src/index.js';
import { MCP_LOGGER, MCP_SERVER } from '../../src/nest/mcp.constants.js';
import { McpExplorer } from '../../src/nest/module/mcp.explorer.js';
import { McpHandlerFactory } from '../../src/nest/pipeline/mcp-handler.factory.js';
import { McpMetadataAccessor } from '../../src/nest/module/mcp-metadata.accessor.js';
import { MCP_MODULE_OPTIONS } from '../../src/nest/module/mcp.module-definition.js';
import type { McpModuleOptions } from '../../src/nest/module/mcp-module-options.interface.js';

/** Stands in for MCPServer: records what the explorer registers. */
class RecordingServer {
  readonly tools: Array<Record<string, any>> = [];
  readonly resources: Array<Record<string, any>> = [];
  readonly prompts: Array<Record<string, any>> = [];
  addTool(registration: Record<string, any>) {
    if (this.tools.some((t) => t.name === registration.name))
      throw new Error(`Tool "${registration.name}" is already registered`);
    this.tools.push(registration);
  }
  addResource(registration: Record<string, any>) {
    this.resources.push(registration);
  }
  addResourceTemplate(): void {}
  addPrompt(registration: Record<string, any>) {
    this.prompts.push(registration);
  }
}

const logger: LoggerService = { log: () => {}, warn: () => {}, error: () => {} };

async function explore(providers: Function[], options: Partial<McpModuleOptions> = {}, server = new RecordingServer()) {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [
      ...(providers as never[]),
      McpExplorer,
      RouteToolsExplorer,
      McpMetadataAccessor,
      McpHandlerFactory,
      { provide: MCP_SERVER, useValue: server },
      { provide: MCP_LOGGER, useValue: logger },
      { provide: MCP_MODULE_OPTIONS, useValue: { name: 's', version: '1', ...options } },
    ],
  }).compile();
  await moduleRef.init();
  await moduleRef.close();
  return server;
}

@Injectable()
class Catalogue {
  @Tool({ description: 'Named after the method', inputSchema: z.object({ q: z.string() }) })
  search(): string {
    return '';
  }

  @Resource({ uri: 'file:///readme', name: 'readme' })
  readme(): string {
    return 'text';
  }

  @Prompt({ name: 'ask', description: 'A prompt', arguments: [{ name: 'topic' }], complete: { topic: 'topics' } })
  ask(): string {
    return 'ask';
  }

  topics(): string[] {
    return ['a', 'b'];
  }
}

describe('McpExplorer', () => {
  it('registers each decorated method once, named after the method when the decorator gives no name', async () => {
    const server = await explore([Catalogue]);
    expect(server.tools.map((t) => t.name)).toEqual(['search']);
    expect(server.resources.map((r) => r.uri)).toEqual(['file:///readme']);
    expect(server.prompts.map((p) => p.name)).toEqual(['ask']);
  });

  it('passes the schema through for the core to convert, and gives handlers that run the method', async () => {
    const server = await explore([Catalogue]);
    expect(typeof server.tools[0].inputSchema.safeParse).toBe('function');
    const ctx = { httpRequest: {}, inputResponses: {} };
    expect(await server.resources[0].handler('file:///readme', {}, ctx)).toBe('text');
  });

  it('binds a completer named by method to the provider instance', async () => {
    const server = await explore([Catalogue]);
    expect(await server.prompts[0].complete.topic('', { arguments: {} })).toEqual(['a', 'b']);
  });

  it('refuses a completer named by method on a request-scoped provider, as a registration error with the cause', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class Scoped {
      @Prompt({ name: 'scoped', arguments: [{ name: 'x' }], complete: { x: 'values' } })
      scoped(): string {
        return '';
      }
      values(): string[] {
        return [];
      }
    }
    const error = await explore([Scoped]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpRegistrationError);
    expect((error as McpRegistrationError).place).toBe('Scoped.scoped');
    expect((error as Error).cause).toBeInstanceOf(McpConfigurationError);
  });

  it('keeps the server error as the cause when the server rejects a registration', async () => {
    const server = new RecordingServer();
    server.tools.push({ name: 'search' });
    const error = await explore([Catalogue], {}, server).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpRegistrationError);
    expect(((error as Error).cause as Error).message).toBe('Tool "search" is already registered');
  });

  it('only looks into the modules of the include option', async () => {
    @Module({ providers: [Catalogue] })
    class CatalogueModule {}
    @Module({})
    class Elsewhere {}
    const server = new RecordingServer();
    const moduleRef = await Test.createTestingModule({
      imports: [DiscoveryModule, CatalogueModule, Elsewhere],
      providers: [
        McpExplorer,
        RouteToolsExplorer,
        McpMetadataAccessor,
        McpHandlerFactory,
        { provide: MCP_SERVER, useValue: server },
        { provide: MCP_LOGGER, useValue: logger },
        { provide: MCP_MODULE_OPTIONS, useValue: { name: 's', version: '1', include: [Elsewhere] } },
      ],
    }).compile();
    await moduleRef.init();
    await moduleRef.close();
    expect(server.tools).toEqual([]);
  });
});
