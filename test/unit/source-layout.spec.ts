import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The house rules a newcomer relies on to find their room: `src/server` is a folder per capability with only the
 * kernel and the types every folder shares at its top, and every source file is named by one rule.
 */
const src = join(process.cwd(), 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [relative(src, path)];
  });
}

// A Nest building block says what kind it is, as Nest's own modules do; everything else is plain kebab-case.
const NEST_KINDS = [
  'module',
  'module-definition',
  'controller',
  'decorator',
  'explorer',
  'accessor',
  'provider',
  'factory',
  'filter',
  'guard',
  'token',
  'constants',
  'enum',
  'interface',
  'server',
];
const plain = /^[a-z0-9]+(-[a-z0-9]+)*\.(ts|cjs|d\.cts)$/;
const nestKind = new RegExp(`^[a-z0-9]+(-[a-z0-9]+)*\\.(${NEST_KINDS.join('|')})\\.ts$`);
const isNestLayer = (file: string) => file.startsWith('nest/') || /^(redis\/mcp-redis|bullmq\/mcp-bull)[.-]/.test(file);

describe('source layout', () => {
  it('names every file in kebab-case, with a kind suffix only on Nest building blocks', () => {
    const misnamed = filesUnder(src).filter((file) => {
      const name = file.split('/').pop()!;
      return !(plain.test(name) || (isNestLayer(file) && nestKind.test(name)));
    });
    expect(misnamed).toEqual([]);
  });

  it("throws start-up failures with named messages, kept in each layer's messages file, never inline", () => {
    const inline = filesUnder(src).flatMap((file) => {
      if (!file.endsWith('.ts')) return [];
      const text = readFileSync(join(src, file), 'utf8');
      return [...text.matchAll(/new McpConfigurationError\(\s*[`'"]/g)].map(() => file);
    });
    expect(inline).toEqual([]);
  });

  it('keeps at most 12 loose files at the top of src/server', () => {
    const loose = readdirSync(join(src, 'server')).filter(
      (entry) => !statSync(join(src, 'server', entry)).isDirectory(),
    );
    expect(loose.length).toBeLessThanOrEqual(12);
  });
});
