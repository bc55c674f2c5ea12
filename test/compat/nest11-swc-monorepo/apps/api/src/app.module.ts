import { Module } from '@nestjs/common';
import { DomainModule } from '@app/domain';
import { McpModule } from 'nestjs-mcp';
import { AppController } from './app.controller';
import metadata from './metadata';

@Module({
  imports: [McpModule.forRoot({ name: 'orders-api', version: '1.0.0' }), DomainModule],
  controllers: [AppController],
  // The schemas nestjs-mcp/plugin derived, which the SWC output does not carry: src/metadata.ts, written by
  // `nest build`. Loaded by an async provider, which Nest settles before any module starts, so that the specs
  // building this module get them too.
  providers: [{ provide: 'MCP_PLUGIN_METADATA', useFactory: () => McpModule.loadPluginMetadata(metadata) }],
})
export class AppModule {}
