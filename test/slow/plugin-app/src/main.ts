import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { McpModule } from 'nestjs-mcp';
import { AppModule } from './app.module';

async function bootstrap() {
  // An SWC build carries the plugin's metadata in the metadata.ts the Nest CLI generated; a tsc build has it
  // compiled into the classes. One source serves both builds here, so the file is looked for, not imported.
  const metadata = join(__dirname, 'metadata.js');
  if (existsSync(metadata)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS app, a file only one build has
    const generated = require(metadata) as { default: () => Promise<Record<string, unknown>> };
    await McpModule.loadPluginMetadata(generated.default);
  }
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`listening ${(app.getHttpServer().address() as { port: number }).port}\n`);
}
void bootstrap();
