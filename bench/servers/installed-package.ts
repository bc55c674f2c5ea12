/**
 * The package as an app installs it: `nestjs-mcp` and its entry points resolve, through the package's own exports
 * map, to the ESM build in dist/ (`npm run build`), which is what `npm pack` ships. The bench's servers take the
 * library from here, so every row measures what users run, not tsc's plain output in build/. The names are
 * computed, so tsc type-checks the bench against the source without needing dist/ to exist.
 */
type Root = typeof import('../../src/index.js');
type Redis = typeof import('../../src/redis/index.js');
type Core = typeof import('../../src/core/index.js');
type Bullmq = typeof import('../../src/bullmq/index.js');

const entry = (path: string) => `nestjs-mcp${path}`;

async function load<T>(path: string): Promise<T> {
  try {
    return (await import(entry(path))) as T;
  } catch (error) {
    throw new Error(`the bench loads the built package (${entry(path)}): run \`npm run build\` first`, {
      cause: error,
    });
  }
}

export const installedPackage = (): Promise<Root> => load<Root>('');
export const installedRedis = (): Promise<Redis> => load<Redis>('/redis');
export const installedCore = (): Promise<Core> => load<Core>('/core');
export const installedBullmq = (): Promise<Bullmq> => load<Bullmq>('/bullmq');
