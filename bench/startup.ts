import 'reflect-metadata';
import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { performance } from 'node:perf_hooks';
import { MCPServer, McpModule } from '../src/index.js';
import { toolDefinitions } from './fixtures.js';

/**
 * Start-up cost of tools, in its own process: `node startup.js <tools>` boots a Nest (Express) app with
 * McpModule and that many tools registered with `registerTool` in `onModuleInit`, and sends the boot time
 * (create + init, modules already loaded) to the parent.
 */
const count = Number(process.argv[2]);

@Injectable()
class StartupTools implements OnModuleInit {
  constructor(@Inject(MCPServer) private readonly server: MCPServer) {}

  onModuleInit(): void {
    for (const tool of count > 0 ? toolDefinitions(count) : []) {
      this.server.registerTool(tool.name, tool.description, tool.inputSchema, () => 'ok');
    }
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'startup', version: '1.0.0' })], providers: [StartupTools] })
class StartupModule {}

const started = performance.now();
const app = await NestFactory.create(StartupModule, { logger: false });
await app.init();
const bootMs = performance.now() - started;
await app.close();
process.send!({ bootMs });
process.disconnect();
