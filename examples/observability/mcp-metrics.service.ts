import { Injectable } from '@nestjs/common';
import type { McpCallEvent } from '../../src/index.js';

export interface ToolStats {
  calls: number;
  errors: number;
  totalMs: number;
}

/**
 * Per-tool counters fed by the `onCall` hook. A stand-in for a Prometheus or OpenTelemetry meter: replace
 * `record` with `counter.inc(...)` / `histogram.observe(...)` and keep the wiring.
 */
@Injectable()
export class McpMetrics {
  private readonly byTarget = new Map<string, ToolStats>();

  record(event: McpCallEvent): void {
    const key = event.name === undefined ? event.method : `${event.method} ${event.name}`;
    const stats = this.byTarget.get(key) ?? { calls: 0, errors: 0, totalMs: 0 };
    stats.calls++;
    if (event.status === 'error' || event.status === 'tool_error') stats.errors++;
    stats.totalMs += event.durationMs;
    this.byTarget.set(key, stats);
  }

  snapshot(): Record<string, ToolStats> {
    return Object.fromEntries(this.byTarget);
  }

  get errors(): number {
    return [...this.byTarget.values()].reduce((sum, s) => sum + s.errors, 0);
  }
}
