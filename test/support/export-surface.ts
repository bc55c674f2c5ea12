import ts from 'typescript';

export const ENTRY_POINTS = {
  'nestjs-mcp': 'src/index.ts',
  'nestjs-mcp/core': 'src/core/index.ts',
  'nestjs-mcp/testing': 'src/testing/index.ts',
  'nestjs-mcp/redis': 'src/redis/index.ts',
  'nestjs-mcp/plugin': 'src/plugin/index.ts',
  'nestjs-mcp/bullmq': 'src/bullmq/index.ts',
} as const;

export type EntryPoint = keyof typeof ENTRY_POINTS;

function entryProgram(): ts.Program {
  return ts.createProgram(Object.values(ENTRY_POINTS), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
  });
}

/** Every name each entry point exports as the compiler sees it (values and types together), sorted. */
export function compiledExportNames(): Record<EntryPoint, string[]> {
  const program = entryProgram();
  const checker = program.getTypeChecker();
  const names = {} as Record<EntryPoint, string[]>;
  for (const [entry, file] of Object.entries(ENTRY_POINTS) as Array<[EntryPoint, string]>) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    names[entry] = checker
      .getExportsOfModule(module)
      .map((symbol) => symbol.name)
      .sort();
  }
  return names;
}

/** The property names of a type an entry point exports (its inherited ones included), sorted. */
export function exportedTypeKeys(entry: EntryPoint, typeName: string): string[] {
  const program = entryProgram();
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(ENTRY_POINTS[entry])!)!;
  const symbol = checker.getExportsOfModule(module).find((s) => s.name === typeName)!;
  const type = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(symbol));
  return type
    .getProperties()
    .map((property) => property.name)
    .sort();
}
