import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { bootstrapStdio, McpModule } from '../../src/index.js';

/** An app that mounts the server at UPSTREAM_URL under the prefix `weather`, served over stdio. */
@Module({
  imports: [
    McpModule.forRoot({
      name: 'stdio-gateway',
      version: '1.0.0',
      upstreams: [{ prefix: 'weather', url: process.env.UPSTREAM_URL! }],
    }),
  ],
})
class StdioGatewayModule {}

bootstrapStdio(StdioGatewayModule).catch((error: Error) => {
  process.stderr.write(`${error.name}: ${error.message}\n`);
  process.exit(1);
});
