import { Module } from '@nestjs/common';
import { McpModule } from 'nestjs-mcp';
import { AppController } from './app.controller';
import { AppService } from './app.service';
import { ConvertTools } from './convert.tools';
import { EchoTools } from './echo.tools';

@Module({
  imports: [McpModule.forRoot({ name: 'compat', version: '1.0.0' })],
  controllers: [AppController],
  providers: [AppService, EchoTools, ConvertTools],
})
export class AppModule {}
