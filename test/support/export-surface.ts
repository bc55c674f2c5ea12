import ts from 'typescript';

export const ENTRY_POINTS = {
  'nestjs-mcp': 'src/index.ts',
  'nestjs-mcp/core': 'src/core/index.ts',
  'nestjs-mcp/testing': 'src/testing/index.ts',
  'nestjs-mcp/express': 'src/express/index.ts',
  'nestjs-mcp/redis': 'src/redis/index.ts',
} as const;

export type EntryPoint = keyof typeof ENTRY_POINTS;

/** Every name each entry point exports as the compiler sees it (values and types together), sorted. */
export function compiledExportNames(): Record<EntryPoint, string[]> {
  const program = ts.createProgram(Object.values(ENTRY_POINTS), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
  });
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
