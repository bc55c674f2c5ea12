import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { MCPServer } from '../../src/index.js';
import { McpMetrics } from './mcp-metrics.service.js';

/** A `@nestjs/terminus` indicator: the MCP server answers `server/discover` in-process, plus its call counters. */
@Injectable()
export class McpHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly server: MCPServer,
    private readonly metrics: McpMetrics,
  ) {}

  async isHealthy(key = 'mcp') {
    const indicator = this.health.check(key);
    const response = await this.server.handleRequest({
      jsonrpc: '2.0',
      id: 'health',
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    if (!response || 'error' in response) return indicator.down({ message: 'server/discover failed' });
    return indicator.up({ failedCalls: this.metrics.errors, calls: this.metrics.snapshot() });
  }
}
