import { runConformance } from 'nestjs-mcp/testing';
import { AppModule } from '../src/app.module.js';

// The referee needs Node 22 or later. On Node 20 it runs on the Node 22 binary run.sh names in CONFORMANCE_NODE
// (docs/testing.md: the `node` option), while this app and vitest stay on the Node that runs them.
const node = Number(process.versions.node.split('.')[0]) < 22 ? process.env.CONFORMANCE_NODE : undefined;

describe('the official conformance referee on this AppModule', () => {
  for (const era of ['2026-07-28', '2025-11-25'] as const) {
    it(`passes every scenario an app can pass at ${era}`, { timeout: 120_000 }, async () => {
      const results = await runConformance(AppModule, { era, node });
      expect(results.length).toBeGreaterThan(0);
      expect(results.filter((result) => !result.passed)).toEqual([]);
    });
  }
});
