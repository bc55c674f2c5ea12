import { NestFactory } from '@nestjs/core';
import { McpModule } from 'nestjs-mcp';
import { AppModule } from './app.module';
import metadata from './metadata';

async function bootstrap() {
  // An SWC build carries the plugin's metadata in the metadata.ts the Nest CLI generates over the placeholder; a
  // tsc build has it compiled into the classes and loads the placeholder, which describes nothing.
  await McpModule.loadPluginMetadata(metadata);
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`listening ${(app.getHttpServer().address() as { port: number }).port}\n`);
}
void bootstrap();
