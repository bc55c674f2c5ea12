import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { withDirLock } from './dir-lock.js';

export const ENTRY_POINTS = {
  'nestjs-mcp': 'src/index.ts',
  'nestjs-mcp/core': 'src/core/index.ts',
  'nestjs-mcp/testing': 'src/testing/index.ts',
  'nestjs-mcp/redis': 'src/redis/index.ts',
  'nestjs-mcp/plugin': 'src/plugin/index.ts',
  'nestjs-mcp/bullmq': 'src/bullmq/index.ts',
} as const;

export type EntryPoint = keyof typeof ENTRY_POINTS;

/** The types of the main entry whose property names the unit tests read. */
const READ_TYPES = ['McpModuleOptions', 'ToolOptions', 'ToolRegistrationOptions'] as const;

/** What the compiler says of the public surface: all the unit tests ask of it, read from one program. */
export interface CompiledSurface {
  /** Every name each entry point exports (values and types together), sorted. */
  exports: Record<EntryPoint, string[]>;
  /** The property names of the main entry's READ_TYPES (inherited ones included), sorted. */
  typeKeys: Record<(typeof READ_TYPES)[number], string[]>;
  /** Each `McpModuleOptions` group (an option whose value is an object of options): its keys, sorted. */
  optionGroups: Record<string, string[]>;
}

function compile(): CompiledSurface {
  const program = ts.createProgram(Object.values(ENTRY_POINTS), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const exportsOf = (file: string) =>
    checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!);
  const names = (symbols: readonly ts.Symbol[]) => symbols.map((symbol) => symbol.name).sort();
  const exports = {} as CompiledSurface['exports'];
  for (const [entry, file] of Object.entries(ENTRY_POINTS) as Array<[EntryPoint, string]>)
    exports[entry] = names(exportsOf(file));
  const main = exportsOf(ENTRY_POINTS['nestjs-mcp']);
  const declared = (name: string) =>
    checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(main.find((symbol) => symbol.name === name)!));
  const typeKeys = {} as CompiledSurface['typeKeys'];
  for (const name of READ_TYPES) typeKeys[name] = names(declared(name).getProperties());
  const optionGroups: Record<string, string[]> = {};
  for (const property of declared('McpModuleOptions').getProperties()) {
    const type = checker.getNonNullableType(checker.getTypeOfSymbol(property));
    const members = type.isUnion() ? type.types : [type];
    // A group is an object of options; a value (a string, a list, a function, a class instance) is not.
    const objects = members.filter(
      (member) =>
        member.flags & ts.TypeFlags.Object && !checker.isArrayType(member) && member.getCallSignatures().length === 0,
    );
    if (objects.length > 0)
      optionGroups[property.name] = [...new Set(objects.flatMap((member) => names(member.getProperties())))].sort();
  }
  return { exports, typeKeys, optionGroups };
}

/**
 * What the program reads, as one digest: every file under src/ (its path and text), the lock (the types of the
 * packages src/ imports), the compiler's version and this file.
 */
function inputsDigest(): string {
  const hash = createHash('sha256').update(ts.version);
  for (const file of ['package-lock.json', fileURLToPath(import.meta.url)]) hash.update(readFileSync(file));
  const sources = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  for (const file of sources.sort()) hash.update(file).update(readFileSync(join('src', file)));
  return hash.digest('hex').slice(0, 16);
}

let cached: Promise<CompiledSurface> | undefined;

/**
 * The compiled surface, built once for all the spec files that read it: a TypeScript program over src/ takes
 * seconds, and jest runs those files in parallel workers. The first to ask builds it under a lock and keeps the
 * answer in the system's temporary folder under the digest of its inputs; the others, and later runs while src/
 * is unchanged, read it there.
 */
export function compiledSurface(): Promise<CompiledSurface> {
  return (cached ??= (async () => {
    const file = join(tmpdir(), `nestjs-mcp-surface-${inputsDigest()}.json`);
    return withDirLock(`${file}.lock`, async () => {
      if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as CompiledSurface;
      const surface = compile();
      writeFileSync(`${file}.${process.pid}`, JSON.stringify(surface));
      renameSync(`${file}.${process.pid}`, file);
      return surface;
    });
  })());
}
