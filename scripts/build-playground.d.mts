/** Writes the playground page to `<outDir>/index.html` and returns its size in bytes. */
export function buildPlayground(outDir: string): Promise<number>;

/** The page's script as esbuild builds it; `metafile` adds what each input weighs in it. */
export function bundlePlayground(options?: {
  metafile?: boolean;
}): Promise<import('esbuild').BuildResult<{ write: false; metafile: boolean }>>;
