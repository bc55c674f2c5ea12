import { Module } from '@nestjs/common';
import { McpModule } from 'nestjs-mcp';
import { WeatherTools } from './weather.tools';

@Module({ imports: [McpModule.forRoot({ name: 'plugin-app', version: '1.0.0' })], providers: [WeatherTools] })
export class AppModule {}
