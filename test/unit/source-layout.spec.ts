import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The house rules a newcomer relies on to find their room: every folder of `src/` holds at most 12 loose files
 * (more is a hallway: the files go into rooms by role), and every source file is named by one rule.
 */
const src = join(process.cwd(), 'src');

const isDir = (path: string) => statSync(path).isDirectory();

function foldersUnder(dir: string): string[] {
  return readdirSync(dir)
    .map((entry) => join(dir, entry))
    .filter(isDir)
    .flatMap((path) => [path, ...foldersUnder(path)]);
}

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

  it('keeps every start-up message in the one messages file', () => {
    const messages = 'server/errors/configuration-messages.ts';
    const inline = filesUnder(src).flatMap((file) => {
      if (file === messages || !file.endsWith('.ts')) return [];
      const text = readFileSync(join(src, file), 'utf8');
      return [...text.matchAll(/new McpConfigurationError\(\s*[`'"]/g)].map(() => file);
    });
    expect(inline).toEqual([]);
  });

  it('keeps at most 12 loose files in every folder of src/', () => {
    const folders = [src, ...foldersUnder(src)];
    const crowded = folders
      .map((dir) => ({
        folder: relative(src, dir) || '.',
        loose: readdirSync(dir).filter((e) => !isDir(join(dir, e))),
      }))
      .filter(({ loose }) => loose.length > 12)
      .map(({ folder, loose }) => `${folder}: ${loose.length}`);
    expect(crowded).toEqual([]);
  });
});
