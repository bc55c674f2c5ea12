/** Writes the playground page to `<outDir>/index.html` and returns its size in bytes. */
export function buildPlayground(outDir: string): Promise<number>;
