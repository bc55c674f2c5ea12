import { Module } from '@nestjs/common';
import { McpModule } from '../../src/index.js';
import { WeatherService } from './weather.service.js';
import { WeatherTools } from './weather.tools.js';

@Module({
  imports: [McpModule.forRoot({ name: 'weather', version: '1.0.0', instructions: 'Weather lookups and small utilities.' })],
  providers: [WeatherService, WeatherTools],
})
export class AppModule {}
