import { defineConfig } from 'vitest/config';
import tsconfigPaths from 'vite-tsconfig-paths';

export default defineConfig({
  plugins: [tsconfigPaths()],
  test: {
    globals: true,
    root: './',
    include: ['**/*.e2e-spec.ts'],
    // nestjs-mcp/plugin's schemas, which vitest's compiler cannot derive: generated once, loaded in each spec.
    globalSetup: ['./test/plugin-metadata.setup.ts'],
    setupFiles: ['./test/load-plugin-metadata.ts'],
  },
});
