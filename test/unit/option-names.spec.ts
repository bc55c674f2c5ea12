import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * Every `group.key` the docs and the source comments name, where `group` is one of `McpModule`'s option groups,
 * and every name they call an `McpModule` option, must be in the options type (read by the compiler, not from
 * the library's own list): an option renamed or moved leaves no stale name behind for a reader to copy into a
 * start-up failure.
 */
function optionTypes(): { topLevel: Set<string>; groups: Map<string, Set<string>> } {
  const program = ts.createProgram(['src/index.ts'], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const entry = checker.getSymbolAtLocation(program.getSourceFile('src/index.ts')!)!;
  const symbol = checker.getExportsOfModule(entry).find((s) => s.name === 'McpModuleOptions')!;
  const options = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(symbol));
  const topLevel = new Set(options.getProperties().map((property) => property.name));
  const groups = new Map<string, Set<string>>();
  for (const property of options.getProperties()) {
    const type = checker.getNonNullableType(checker.getTypeOfSymbol(property));
    const members = type.isUnion() ? type.types : [type];
    // A group is an object of options; a value (a string, a list, a function, a class instance) is not.
    const objects = members.filter(
      (member) =>
        member.flags & ts.TypeFlags.Object && !checker.isArrayType(member) && member.getCallSignatures().length === 0,
    );
    if (objects.length === 0) continue;
    groups.set(property.name, new Set(objects.flatMap((member) => member.getProperties().map((p) => p.name))));
  }
  return { topLevel, groups };
}

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

describe('Option names in the docs and the source comments', () => {
  const { topLevel, groups } = optionTypes();
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
