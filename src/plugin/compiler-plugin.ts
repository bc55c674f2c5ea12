import ts from 'typescript';
import { MCP_PLUGIN_METADATA_FACTORY } from './metadata/plugin-metadata.js';
import { jsonLiteral } from './json-literal.js';
import { readClassMetadata } from './mcp-method-reader.js';
import type { McpPluginOptions } from './plugin-options.js';

/**
 * The `before` transformer the Nest CLI (and ts-jest) runs: each class with MCP methods gets a static
 * `_MCP_METADATA_FACTORY()` returning what the plugin derived, which the explorer reads at start-up. It needs
 * the program's type checker, so a transpile-only build (`isolatedModules` in ts-jest) cannot run it.
 */
export function before(_options: McpPluginOptions | undefined, program: ts.Program | undefined) {
  // A transpile-only compile (ts-jest with `isolatedModules`) gives no program, or one of a single file whose
  // imports are not resolved: the decorators would not be recognised and every schema silently left out.
  if (!program || program.getCompilerOptions().noResolve) throw new Error(TRANSPILE_ONLY);
  const checker = program.getTypeChecker();
  return (context: ts.TransformationContext) => (sourceFile: ts.SourceFile) => {
    if (sourceFile.isDeclarationFile) return sourceFile;
    // The same failure, quieter: a checker of another program than the one being emitted knows none of its nodes.
    if (program.getSourceFile(sourceFile.fileName) !== ts.getOriginalNode(sourceFile)) {
      throw new Error(
        `nestjs-mcp/plugin: ${sourceFile.fileName} is not in the program whose type checker it was given ` +
          '(a compile with other options than its type check, or a watch that kept its first program).',
      );
    }
    const visit = (node: ts.Node): ts.Node => {
      if (ts.isClassDeclaration(node)) return withMetadataFactory(node, checker, context.factory);
      return ts.isSourceFile(node) || ts.isModuleBlock(node) || ts.isModuleDeclaration(node)
        ? ts.visitEachChild(node, visit, context)
        : node;
    };
    return ts.visitEachChild(sourceFile, visit, context);
  };
}

const TRANSPILE_ONLY =
  'nestjs-mcp/plugin needs the type checker, which a transpile-only compile does not build. In ts-jest, set ' +
  '"isolatedModules": false in its "tsconfig" option.';

function withMetadataFactory(node: ts.ClassDeclaration, checker: ts.TypeChecker, factory: ts.NodeFactory) {
  const original = ts.getOriginalNode(node, ts.isClassDeclaration) ?? node;
  const metadata = readClassMetadata(original, checker);
  if (!metadata) return node;
  const method = factory.createMethodDeclaration(
    [factory.createModifier(ts.SyntaxKind.StaticKeyword)],
    undefined,
    factory.createIdentifier(MCP_PLUGIN_METADATA_FACTORY),
    undefined,
    undefined,
    [],
    undefined,
    factory.createBlock([factory.createReturnStatement(jsonLiteral(metadata, factory))], true),
  );
  return factory.updateClassDeclaration(node, node.modifiers, node.name, node.typeParameters, node.heritageClauses, [
    ...node.members,
    method,
  ]);
}
