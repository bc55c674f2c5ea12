import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { McpModule } from '../../src/index.js';
import { HealthController } from './health.controller.js';
import { McpMetrics } from './mcp-metrics.service.js';
import { McpHealthIndicator } from './mcp.health.js';

/** Metrics live in their own module so the async MCP options can inject them. */
@Module({ providers: [McpMetrics], exports: [McpMetrics] })
export class MetricsModule {}

@Module({
  imports: [
    MetricsModule,
    TerminusModule,
    McpModule.forRootAsync({
      imports: [MetricsModule],
      inject: [McpMetrics],
      useFactory: (metrics: McpMetrics) => ({
        name: 'observed',
        version: '1.0.0',
        observability: { onCall: (event) => metrics.record(event) },
      }),
    }),
  ],
  controllers: [HealthController],
  providers: [McpHealthIndicator],
})
export class ObservabilityAppModule {}
