import { Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { McpModule } from '../../src/index.js';
import { ForecastController } from './forecast.controller.js';
import pluginMetadata from './plugin-metadata.js';
import { WeatherCatalog } from './weather.catalog.js';
import { WeatherEvents } from './weather.events.js';
import { WeatherService } from './weather.service.js';
import { WeatherTools } from './weather.tools.js';

@Module({
  imports: [
    // The app's own events: get_weather emits one per forecast, and WeatherEvents serves it as an MCP event.
    EventEmitterModule.forRoot(),
    McpModule.forRoot({
      name: 'weather',
      version: '1.0.0',
      instructions: 'Weather lookups and small utilities.',
      // A page at /mcp/playground to list, call and render everything this server offers (development only).
      playground: true,
    }),
  ],
  controllers: [ForecastController],
  providers: [
    // What nestjs-mcp/plugin derived for the tools written without a schema, generated at build time
    // (scripts/plugin-metadata.mjs) since plain tsc runs no plugin; `nest build` compiles it into the classes.
    // A provider's async factory settles before any module starts, so the explorer finds it.
    { provide: 'PLUGIN_METADATA', useFactory: () => McpModule.loadPluginMetadata(pluginMetadata) },
    WeatherService,
    WeatherTools,
    WeatherCatalog,
    WeatherEvents,
  ],
})
export class AppModule {}
