import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';

/**
 * The house rules a newcomer relies on to find their room: every folder of `src/` holds at most 12 loose files
 * (more is a hallway: the files go into rooms by role), no file is over 400 lines, the folders import each other
 * one way only (the top files of a folder are the floor its subfolders stand on, never the other way round), and
 * every source file is named by one rule.
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

  it("throws start-up failures with named messages, kept in each layer's messages file, never inline", () => {
    const inline = filesUnder(src).flatMap((file) => {
      if (!file.endsWith('.ts')) return [];
      const text = readFileSync(join(src, file), 'utf8');
      return [...text.matchAll(/new McpConfigurationError\(\s*[`'"]/g)].map(() => file);
    });
    expect(inline).toEqual([]);
  });

  it("makes a handler's context in one place, so no way of running a call can carry a different one", () => {
    const made = filesUnder(src).flatMap((file) => {
      if (!file.endsWith('.ts')) return [];
      return [...readFileSync(join(src, file), 'utf8').matchAll(/new McpContext\(/g)].map(() => file);
    });
    expect(made).toEqual(['server/make-context.ts']);
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

  it('keeps every file of src/ at 400 lines or fewer', () => {
    const long = filesUnder(src)
      .filter((file) => file.endsWith('.ts'))
      .map((file) => ({ file, lines: readFileSync(join(src, file), 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > 400)
      .map(({ file, lines }) => `${file}: ${lines}`);
    expect(long).toEqual([]);
  });

  it("lets the optional entry points reach the Nest module and the transports only through a public entry's modules", () => {
    const doors = new Set(['index.ts', 'core/index.ts'].flatMap(importsOf));
    const through = filesUnder(src).flatMap((file) => {
      const room = file.split('/')[0];
      if (!OPTIONAL_ENTRIES.includes(room) || !/\.(ts|cts)$/.test(file)) return [];
      return [...new Set(importsOf(file))]
        .filter((target) => !target.startsWith(`${room}/`) && ABOVE_THE_FLOOR.includes(target.split('/')[0]))
        .filter((target) => !doors.has(target))
        .map((target) => `${file} imports ${target}`);
    });
    expect(through).toEqual([]);
  });

  it('lets the rest of src/ reach the compiler plugin only through its runtime contract, which imports no code', () => {
    const into = filesUnder(src).flatMap((file) => {
      if (file.startsWith('plugin/') || !/\.(ts|cts)$/.test(file)) return [];
      return [...new Set(importsOf(file))]
        .filter((target) => target.startsWith('plugin/') && !target.startsWith(PLUGIN_DOOR))
        .map((target) => `${file} imports ${target}`);
    });
    expect(into).toEqual([]);
    // The door is loaded by every app, with or without the plugin: it brings no TypeScript and nothing of ours but
    // the protocol's types, erased at build time.
    const behind = filesUnder(src)
      .filter((file) => file.startsWith(PLUGIN_DOOR))
      .flatMap((file) =>
        [...readFileSync(join(src, file), 'utf8').matchAll(/^(import(?! type)|export)[^;]*from\s*['"]([^'"]+)['"]/gm)]
          .map(([, , specifier]) => specifier)
          .filter((specifier) => !specifier.startsWith('./'))
          .map((specifier) => `${file} imports ${specifier}`),
      );
    expect(behind).toEqual([]);
  });

  it('has no import cycle between folders of src/', () => {
    const arrows = folderArrows();
    const cycles = cyclesOf(arrows).map((cycle) =>
      cycle.map((folder, i) => `${folder} -> ${arrows.get(folder)!.get(cycle[(i + 1) % cycle.length])}`).join('; '),
    );
    expect(cycles).toEqual([]);
  });
});

/**
 * `nestjs-mcp/bullmq`, `/redis`, `/testing`, `/plugin` and `/core` are installed by apps as the main entry is, so
 * they use what it promises: a module `src/index.ts` or `src/core/index.ts` exports from. The kernel's floor
 * (`src/protocol`, `src/server`) holds no Nest wiring and stays open to them; the rooms above it hold the Nest
 * module's internal tokens and the transports, which an optional entry point would otherwise tie itself to.
 */
const OPTIONAL_ENTRIES = ['bullmq', 'redis', 'testing', 'plugin', 'core'];
const ABOVE_THE_FLOOR = ['nest', 'http', 'stdio', 'auth', 'observability'];
/**
 * What the Nest module reads of the compiler plugin's work (the static factory a build adds, the loader an SWC
 * build calls), as `@nestjs/swagger` keeps `lib/plugin/metadata-loader` beside its plugin.
 */
const PLUGIN_DOOR = 'plugin/metadata/';

/** The files of src/ that `file` imports, as paths from src/ (`nest/mcp.server.js`). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(src, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(([, specifier]) =>
    posix.normalize(posix.join(dirname(file), specifier)),
  );
}

/** From folder to folder of src/: one file that imports across, for each pair that does. */
function folderArrows(): Map<string, Map<string, string>> {
  const arrows = new Map<string, Map<string, string>>();
  for (const file of filesUnder(src).filter((f) => /\.(ts|cts)$/.test(f) && !f.endsWith('.d.cts'))) {
    const text = readFileSync(join(src, file), 'utf8');
    for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const from = dirname(file);
      const to = posix.dirname(posix.normalize(posix.join(from, specifier)));
      if (to === from || to.startsWith('..')) continue;
      if (!arrows.has(from)) arrows.set(from, new Map());
      if (!arrows.get(from)!.has(to)) arrows.get(from)!.set(to, `${file} imports ${specifier}`);
    }
  }
  return arrows;
}

/** The strongly connected groups of more than one folder (Tarjan), each as a walk around its cycle. */
function cyclesOf(arrows: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (folder: string) => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder)!);
    stack.push(folder);
    for (const next of arrows.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(folder, Math.min(low.get(folder)!, index.get(next)!));
    }
    if (low.get(folder) !== index.get(folder)) return;
    const group: string[] = [];
    let member: string;
    do group.push((member = stack.pop()!));
    while (member !== folder);
    if (group.length > 1) groups.push(walkAround(group, arrows));
  };
  for (const folder of arrows.keys()) if (!index.has(folder)) visit(folder);
  return groups;
}

// One cycle through a group, for the failure message: follow arrows inside the group until a folder repeats.
function walkAround(group: string[], arrows: Map<string, Map<string, string>>): string[] {
  const path = [group[0]];
  for (;;) {
    const next = [...(arrows.get(path.at(-1)!)?.keys() ?? [])].find((f) => group.includes(f))!;
    const seen = path.indexOf(next);
    if (seen >= 0) return path.slice(seen);
    path.push(next);
  }
}
