import { Module } from '@nestjs/common';
import { McpModule } from '../../src/index.js';
import { WeatherCardTools } from './weather-card.tools.js';

@Module({
  imports: [McpModule.forRoot({ name: 'weather-apps', version: '1.0.0', playground: true })],
  providers: [WeatherCardTools],
})
export class AppModule {}
