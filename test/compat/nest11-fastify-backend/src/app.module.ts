import { Module, UseGuards } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { McpModule } from 'nestjs-mcp';
import { AppController } from './app.controller';
import { EndpointGateGuard, Gate } from './endpoint-gate.guard';
import { HttpExceptionFilter } from './http-exception.filter';
import { NotesTools } from './notes.tools';
import { SessionGuard } from './session.guard';
import { TenantCounter } from './tenant';

@Module({
  imports: [
    McpModule.forRoot({
      name: 'notes',
      version: '1.0.0',
      // The session guard establishes the user; the endpoint takes it and answers refusals with its challenge.
      auth: { resource: 'https://notes.example.com/mcp', fromRequest: (req: { user?: unknown }) => req.user },
      // The app's own gate, on the endpoint as on a controller it wrote.
      http: { routeDecorators: [Gate('mcp'), UseGuards(EndpointGateGuard)] },
    }),
  ],
  controllers: [AppController],
  providers: [
    NotesTools,
    TenantCounter,
    { provide: APP_GUARD, useClass: SessionGuard },
    { provide: APP_FILTER, useClass: HttpExceptionFilter },
  ],
})
export class AppModule {}
