// Plain ESM, as a Nest 12 app compiled with "module": "nodenext" and "type": "module" emits it.
import { Module, Injectable, Inject } from '@nestjs/common';
import { McpModule, MCPServer } from 'nestjs-mcp';

class EchoTools {
  constructor(server) {
    server.registerTool(
      'echo',
      'Echoes text',
      { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      (args) => args.text,
    );
  }
}
Inject(MCPServer)(EchoTools, undefined, 0);
Injectable()(EchoTools);

export class AppModule {}
Module({ imports: [McpModule.forRoot({ name: 'compat-esm', version: '1.0.0' })], providers: [EchoTools] })(AppModule);
