import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compiledSurface } from '../support/export-surface.js';

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix))
    .map((file) => join(dir, file));
}

/** The text a reader sees as code: backtick spans and fenced blocks of Markdown, the comments of TypeScript. */
function codeText(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.md')) return [...text.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0]).join('\n');
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|\/\/.*$/gm)].map((m) => m[0]).join('\n');
}

/** Node's `http` module shares its name with the `http` group. */
const NODE_HTTP = new Set(['createServer', 'Server', 'IncomingMessage', 'ServerResponse', 'request', 'get']);

/** `group.key` not preceded by a name or a dot (`options.http.cors` is code, `tasks.md` a file). */
function namedPaths(text: string, groups: Map<string, Set<string>>): string[] {
  const heads = [...groups.keys()].join('|');
  const pattern = new RegExp(`(?<![\\w.$/-])(${heads})\\.([A-Za-z_]\\w*)(?![\\w(-])`, 'g');
  return [...text.matchAll(pattern)]
    .filter(([, , key]) => !['md', 'ts', 'js', 'json', 'html'].includes(key))
    .filter(([, group, key]) => group !== 'http' || !NODE_HTTP.has(key))
    .map(([path]) => path);
}

/** What a text calls an option of the module: "McpModule option `x`", "module options x.y". */
function calledOptions(text: string): string[] {
  return [...text.matchAll(/\b(?:McpModule|module) options? `?([A-Za-z_][\w.]*\w)/g)].map(([, name]) => name);
}

/**
 * Every `group.key` the docs and the source comments name, where `group` is one of `McpModule`'s option groups,
 * and every name they call an `McpModule` option, must be in the options type (read by the compiler, not from
 * the library's own list): an option renamed or moved leaves no stale name behind for a reader to copy into a
 * start-up failure.
 */
describe('Option names in the docs and the source comments', () => {
  let topLevel: Set<string>;
  let groups: Map<string, Set<string>>;

  // The types as the compiler reads them, not the library's own list of known keys.
  beforeAll(async () => {
    const surface = await compiledSurface();
    topLevel = new Set(surface.typeKeys.McpModuleOptions);
    groups = new Map(Object.entries(surface.optionGroups).map(([group, keys]) => [group, new Set(keys)]));
  }, 120_000);
  const files = ['README.md', ...filesUnder('docs', '.md'), ...filesUnder('src', '.ts')];

  it('reads the option groups from the type', () => {
    expect(groups.get('listen')).toEqual(
      new Set([
        'eventBus',
        'eventStore',
        'maxStreams',
        'maxStreamsPerCaller',
        'maxResourceSubscriptions',
        'maxUriLength',
      ]),
    );
    expect(groups.get('http')?.has('cors')).toBe(true);
    expect(groups.has('name')).toBe(false);
  });

  it('finds a stale name where there is one', () => {
    expect(namedPaths('set `listen.maxSubscriptions` or `requestState.secret`', groups)).toEqual([
      'listen.maxSubscriptions',
      'requestState.secret',
    ]);
  });

  it('names only options that exist', () => {
    const stale = files.flatMap((file) =>
      namedPaths(codeText(file), groups)
        .filter((path) => {
          const [group, key] = path.split('.');
          return !groups.get(group)!.has(key);
        })
        .map((path) => `${file}: ${path}`),
    );
    expect(stale).toEqual([]);
  });

  it('calls nothing an McpModule option that is not one', () => {
    expect(calledOptions('the McpModule option `maxSubscriptions`, module option requestState.secret')).toEqual([
      'maxSubscriptions',
      'requestState.secret',
    ]);
    const stale = files.flatMap((file) =>
      calledOptions(readFileSync(file, 'utf8'))
        .filter((name) => {
          const [head, key] = name.split('.');
          return key === undefined ? !topLevel.has(head) : !groups.get(head)?.has(key);
        })
        .map((name) => `${file}: ${name}`),
    );
    expect(stale).toEqual([]);
  });
});
