import { Module } from '@nestjs/common';
import { McpModule } from '../../src/index.js';
import { ForecastController } from './forecast.controller.js';
import { WeatherCatalog } from './weather.catalog.js';
import { WeatherService } from './weather.service.js';
import { WeatherTools } from './weather.tools.js';

@Module({
  imports: [
    McpModule.forRoot({
      name: 'weather',
      version: '1.0.0',
      instructions: 'Weather lookups and small utilities.',
      // A page at /mcp/playground to list, call and render everything this server offers (development only).
      playground: true,
    }),
  ],
  controllers: [ForecastController],
  providers: [WeatherService, WeatherTools, WeatherCatalog],
})
export class AppModule {}
