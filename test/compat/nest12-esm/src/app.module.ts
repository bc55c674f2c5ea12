import { Module } from '@nestjs/common';
import { McpModule } from 'nestjs-mcp';
import { AppController } from './app.controller.js';
import { AppService } from './app.service.js';
import { ConvertTools } from './convert.tools.js';
import { EchoTools } from './echo.tools.js';

@Module({
  imports: [McpModule.forRoot({ name: 'compat', version: '1.0.0' })],
  controllers: [AppController],
  providers: [AppService, EchoTools, ConvertTools],
})
export class AppModule {}
