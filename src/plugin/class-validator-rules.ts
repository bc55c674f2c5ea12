import ts from 'typescript';
import type { JsonSchema } from '../protocol/mcp-types.js';
import { literalValueOf } from './doc-comments.js';

type Rule = (args: unknown[]) => JsonSchema;

const number = (value: unknown) => (typeof value === 'number' ? value : undefined);

// The class-validator decorators whose meaning JSON Schema has a keyword for; the others are checked where they
// run (a `ValidationPipe`) and leave the derived schema as the TypeScript type gave it.
const RULES: Record<string, Rule> = {
  IsInt: () => ({ type: 'integer' }),
  IsNumber: () => ({ type: 'number' }),
  IsString: () => ({ type: 'string' }),
  IsBoolean: () => ({ type: 'boolean' }),
  IsEmail: () => ({ format: 'email' }),
  IsUUID: () => ({ format: 'uuid' }),
  IsUrl: () => ({ format: 'uri' }),
  IsDateString: () => ({ format: 'date-time' }),
  IsISO8601: () => ({ format: 'date-time' }),
  IsPositive: () => ({ exclusiveMinimum: 0 }),
  IsNegative: () => ({ exclusiveMaximum: 0 }),
  IsNotEmpty: () => ({ minLength: 1 }),
  Min: ([min]) => ({ minimum: number(min) }),
  Max: ([max]) => ({ maximum: number(max) }),
  MinLength: ([min]) => ({ minLength: number(min) }),
  MaxLength: ([max]) => ({ maxLength: number(max) }),
  Length: ([min, max]) => ({ minLength: number(min), maxLength: number(max) }),
  ArrayMinSize: ([min]) => ({ minItems: number(min) }),
  ArrayMaxSize: ([max]) => ({ maxItems: number(max) }),
  Matches: ([pattern]) => ({ pattern: typeof pattern === 'string' ? pattern : undefined }),
  IsIn: ([values]) => ({ enum: Array.isArray(values) ? values : undefined }),
};

/**
 * The JSON Schema keywords a DTO property's class-validator decorators add to its derived schema, and whether
 * `@IsOptional` makes it optional. Only decorators imported from `class-validator` with literal arguments count.
 */
export function classValidatorRules(
  property: ts.PropertyDeclaration,
  checker: ts.TypeChecker,
): { keywords: JsonSchema; optional: boolean } {
  const keywords: JsonSchema = {};
  let optional = false;
  for (const decorator of ts.getDecorators(property) ?? []) {
    const call = decorator.expression;
    if (!ts.isCallExpression(call) || !ts.isIdentifier(call.expression)) continue;
    if (!isFromClassValidator(call.expression, checker)) continue;
    const name = call.expression.text;
    if (name === 'IsOptional') {
      optional = true;
      continue;
    }
    const rule = RULES[name];
    // `{ each: true }` applies the rule to an array's items, which this table does not model.
    if (!rule || call.arguments.some((arg) => isEachOption(arg))) continue;
    const args = call.arguments.map((arg) => regexpSource(arg) ?? literalValueOf(arg));
    for (const [key, value] of Object.entries(rule(args))) if (value !== undefined) keywords[key] = value;
  }
  return { keywords, optional };
}

function isFromClassValidator(identifier: ts.Identifier, checker: ts.TypeChecker): boolean {
  const symbol = checker.getSymbolAtLocation(identifier);
  const declaration = symbol?.declarations?.[0];
  if (!declaration || !ts.isImportSpecifier(declaration)) return false;
  const specifier = declaration.parent.parent.parent.moduleSpecifier;
  return ts.isStringLiteral(specifier) && specifier.text === 'class-validator';
}

function isEachOption(node: ts.Expression): boolean {
  return (
    ts.isObjectLiteralExpression(node) &&
    node.properties.some((p) => ts.isPropertyAssignment(p) && p.name.getText() === 'each')
  );
}

function regexpSource(node: ts.Expression): string | undefined {
  if (!ts.isRegularExpressionLiteral(node)) return undefined;
  return node.text.slice(1, node.text.lastIndexOf('/'));
}
