'use strict';
// Plain CommonJS, as a Nest 11 app compiled by tsc with "module": "commonjs" emits it.
const { Module, Injectable, Inject } = require('@nestjs/common');
const { McpModule, MCPServer } = require('nestjs-mcp');

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

class AppModule {}
Module({ imports: [McpModule.forRoot({ name: 'compat-cjs', version: '1.0.0' })], providers: [EchoTools] })(AppModule);

module.exports = { AppModule };
