import { resolve } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// The Nest docs' SWC recipe for vitest: SWC compiles the specs and the app with the decorator metadata Nest's
// dependency injection reads, which vitest's own compiler leaves out.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    alias: { '@app/domain': resolve(__dirname, 'libs/domain/src') },
  },
  test: {
    root: './',
    include: ['apps/**/test/**/*.e2e-spec.ts'],
    // nestjs-mcp/plugin's schemas, which SWC cannot derive: generated once before the specs, as `nest build` does.
    globalSetup: ['./apps/api/test/plugin-metadata.setup.ts'],
  },
});
