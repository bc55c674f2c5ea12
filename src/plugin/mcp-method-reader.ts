import ts from 'typescript';
import type { JsonSchema, PromptArgument } from '../protocol/mcp-types.js';
import type {
  PluginClassMetadata,
  PluginMethodMetadata,
  RouteArgumentDescriptions,
} from './metadata/plugin-metadata.js';
import { argumentPlanOf } from './argument-plan.js';
import { docOf, literalValueOf, paramDocOf } from './doc-comments.js';
import { McpPluginError } from './mcp-plugin-error.js';
import { isPackageFile } from './package-file.js';
import { acceptsUndefined, TypeRefusal, TypeSchemaBuilder } from './type-schema.js';

type Kind = PluginMethodMetadata['kind'];

const METHOD_DECORATORS: Record<string, Kind> = {
  Tool: 'tool',
  Prompt: 'prompt',
  ResourceTemplate: 'resourceTemplate',
  RouteTool: 'routeTool',
};

// Nest's parameter decorators a route tool's arguments come from, and where the route reads each.
const ROUTE_VALUE_DECORATORS: Record<string, keyof RouteArgumentDescriptions> = {
  Param: 'path',
  Query: 'query',
  Body: 'body',
};

// The options keys that, written in the decorator, leave the matching derivation out.
const EXPLICIT_INPUT: Partial<Record<Kind, string>> = { tool: 'inputSchema', prompt: 'arguments' };

/**
 * Reads one class for the plugin: for each `@Tool`, `@Prompt`, `@ResourceTemplate` and `@RouteTool` method,
 * what its JSDoc, parameter types and return type say. Undefined when the class has none.
 */
export function readClassMetadata(node: ts.ClassDeclaration, checker: ts.TypeChecker): PluginClassMetadata | undefined {
  let out: PluginClassMetadata | undefined;
  for (const member of node.members) {
    if (!ts.isMethodDeclaration(member) || !(ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) continue;
    const decorator = mcpDecoratorOf(member, checker);
    if (!decorator) continue;
    const place = `${node.name?.text ?? 'default'}.${member.name.text}`;
    (out ??= {})[member.name.text] = readMethod(member, decorator.kind, decorator.options, checker, place);
  }
  return out;
}

function readMethod(
  method: ts.MethodDeclaration,
  kind: Kind,
  options: ts.Expression | undefined,
  checker: ts.TypeChecker,
  place: string,
): PluginMethodMetadata {
  const explicit = explicitKeys(options);
  const meta: PluginMethodMetadata = { kind };
  const symbol = checker.getSymbolAtLocation(method.name);
  const description = symbol && docOf(symbol, checker);
  if (description && !explicit.has('description')) meta.description = description;
  const inputKey = EXPLICIT_INPUT[kind];
  // A method whose schema is written by hand is left as written: the plugin only gives it a missing description.
  if (inputKey && explicit.has(inputKey)) return meta;
  // A route tool's arguments are its route's parameters, which the route tools explorer reads at start-up; the
  // comments on them are only here.
  if (kind === 'routeTool') {
    const descriptions = routeArgumentDescriptions(method, checker);
    if (descriptions) meta.argumentDescriptions = descriptions;
  }
  if (kind === 'prompt' || kind === 'tool') {
    const input = deriveArguments(method, checker, place);
    if (kind === 'prompt') meta.arguments = promptArguments(input, place);
    // A method that takes no arguments keeps the default of a tool without inputSchema: no arguments at all.
    else if (
      Object.keys(input.properties as object).length > 0 ||
      input.additionalProperties ||
      input.patternProperties
    ) {
      meta.inputSchema = input;
    }
    const plan = refusedAt(place, () => argumentPlanOf(input));
    if (plan) meta.argumentPlan = plan;
  }
  if ((kind === 'tool' || kind === 'routeTool') && !explicit.has('outputSchema')) {
    const output = outputSchemaOf(method, checker);
    if (output) meta.outputSchema = output;
  }
  return meta;
}

/** The arguments' object schema, from `@Args('name')` and `@Args()` parameters (or the first, undecorated). */
function deriveArguments(method: ts.MethodDeclaration, checker: ts.TypeChecker, place: string): JsonSchema {
  const builder = new TypeSchemaBuilder(checker);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  let additional: unknown;
  let patterns: Record<string, unknown> | undefined;
  // With no parameter decorator at all the handler gets the kernel's arguments: `(args, ...)` first.
  const decorated = method.parameters.some((parameter) => (ts.getDecorators(parameter) ?? []).length > 0);
  method.parameters.forEach((parameter, index) => {
    const args = decorated ? argsDecoratorOf(parameter, checker) : index === 0 ? { property: undefined } : undefined;
    if (!args) return;
    const type = checker.getTypeAtLocation(parameter);
    refusedAt(place, () => {
      if (args.property === undefined) {
        const whole = builder.objectSchemaOf(type);
        Object.assign(properties, whole.properties);
        required.push(...((whole.required ?? []) as string[]));
        if (whole.additionalProperties !== undefined) additional = whole.additionalProperties;
        if (whole.patternProperties) patterns = { ...patterns, ...(whole.patternProperties as object) };
        return;
      }
      const name = args.property;
      const schema = { ...builder.schemaAt(name, type) };
      const doc = paramDocOf(parameter);
      if (doc) schema.description = doc;
      const fallback = parameter.initializer && literalValueOf(parameter.initializer);
      if (fallback !== undefined) schema.default = fallback;
      properties[name] = schema;
      if (!parameter.questionToken && !parameter.initializer && !acceptsUndefined(type)) required.push(name);
    });
  });
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = [...new Set(required)];
  if (additional !== undefined) schema.additionalProperties = additional;
  if (patterns) schema.patternProperties = patterns;
  const defs = builder.defs();
  if (defs) schema.$defs = defs;
  return schema;
}

/** What `derive` gives, a refusal of a type made the build error naming the method. */
function refusedAt<T>(place: string, derive: () => T): T {
  try {
    return derive();
  } catch (error) {
    if (error instanceof TypeRefusal) throw McpPluginError.refused(place, error);
    throw error;
  }
}

/** What the JSDoc says of the values a route reads: a DTO's properties (`@Body() dto`), or one key's `@param`. */
function routeArgumentDescriptions(
  method: ts.MethodDeclaration,
  checker: ts.TypeChecker,
): RouteArgumentDescriptions | undefined {
  const out: RouteArgumentDescriptions = {};
  for (const parameter of method.parameters) {
    for (const decorator of ts.getDecorators(parameter) ?? []) {
      const call = decorator.expression;
      if (!ts.isCallExpression(call)) continue;
      const name = packageExportName(call.expression, checker, '@nestjs/common');
      if (!name || !Object.hasOwn(ROUTE_VALUE_DECORATORS, name)) continue;
      const docs: Record<string, string> = {};
      const [key] = call.arguments;
      if (key && ts.isStringLiteralLike(key)) {
        const doc = paramDocOf(parameter);
        if (doc) docs[key.text] = doc;
      } else {
        for (const property of checker.getTypeAtLocation(parameter).getProperties()) {
          const doc = property.flags & ts.SymbolFlags.Property ? docOf(property, checker) : undefined;
          if (doc) docs[property.name] = doc;
        }
      }
      if (Object.keys(docs).length > 0) Object.assign((out[ROUTE_VALUE_DECORATORS[name]] ??= {}), docs);
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A prompt's arguments are strings on the wire: a property of another type is refused, not coerced. */
function promptArguments(schema: JsonSchema, place: string): PromptArgument[] {
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, property]) => {
    if (property.type !== 'string') {
      throw McpPluginError.refused(
        place,
        new TypeRefusal(JSON.stringify(property.type ?? property), 'a prompt argument is a string', [name]),
      );
    }
    const argument: PromptArgument = { name, required: required.has(name) };
    if (typeof property.description === 'string') argument.description = property.description;
    return argument;
  });
}

/**
 * The result's schema when the method returns plain data of its own (an object type declared in the app, awaited
 * if a promise): structured content is an object. Anything else (a string, an array, a library's type, a result
 * that carries its own `content`) gets none, and the result is sent as it is today.
 */
function outputSchemaOf(method: ts.MethodDeclaration, checker: ts.TypeChecker): JsonSchema | undefined {
  const signature = checker.getSignatureFromDeclaration(method);
  if (!signature) return undefined;
  const returned = checker.getReturnTypeOfSignature(signature);
  const type = checker.getAwaitedType(returned) ?? returned;
  if (!(type.flags & ts.TypeFlags.Object) || checker.isArrayType(type) || checker.isTupleType(type)) return undefined;
  const declaration = (type.aliasSymbol ?? type.getSymbol())?.declarations?.[0];
  if (!declaration || declaration.getSourceFile().isDeclarationFile) return undefined;
  if (type.getProperty('content')) return undefined;
  try {
    const builder = new TypeSchemaBuilder(checker, true);
    const schema = builder.objectSchemaOf(type);
    const defs = builder.defs();
    return defs ? { ...schema, $defs: defs } : schema;
  } catch (error) {
    if (error instanceof TypeRefusal) return undefined;
    throw error;
  }
}

function mcpDecoratorOf(method: ts.MethodDeclaration, checker: ts.TypeChecker) {
  for (const decorator of ts.getDecorators(method) ?? []) {
    const call = decorator.expression;
    if (!ts.isCallExpression(call)) continue;
    const name = packageExportName(call.expression, checker);
    const kind = name && Object.hasOwn(METHOD_DECORATORS, name) ? METHOD_DECORATORS[name] : undefined;
    if (kind) return { kind, options: call.arguments[0] };
  }
  return undefined;
}

/** `@Args()` (the whole arguments) or `@Args('name')` (one of them), if the parameter has it. */
function argsDecoratorOf(parameter: ts.ParameterDeclaration, checker: ts.TypeChecker) {
  for (const decorator of ts.getDecorators(parameter) ?? []) {
    const call = decorator.expression;
    if (!ts.isCallExpression(call) || packageExportName(call.expression, checker) !== 'Args') continue;
    const [first] = call.arguments;
    return { property: first && ts.isStringLiteralLike(first) ? first.text : undefined };
  }
  return undefined;
}

/** The name this package (or the one named) exports a decorator under, if `expression` refers to one of its exports. */
function packageExportName(
  expression: ts.Expression,
  checker: ts.TypeChecker,
  packageName?: string,
): string | undefined {
  const identifier = ts.isPropertyAccessExpression(expression) ? expression.name : expression;
  if (!ts.isIdentifier(identifier)) return undefined;
  let symbol = checker.getSymbolAtLocation(identifier);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.declarations?.[0];
  if (!symbol || !declaration || !isPackageFile(declaration.getSourceFile().fileName, packageName)) return undefined;
  return symbol.getName();
}

function explicitKeys(options: ts.Expression | undefined): Set<string> {
  const keys = new Set<string>();
  if (!options || !ts.isObjectLiteralExpression(options)) return keys;
  for (const property of options.properties) {
    if (property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
      keys.add(property.name.text);
    }
  }
  return keys;
}
