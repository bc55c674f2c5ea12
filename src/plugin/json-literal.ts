import ts from 'typescript';

/** A JSON value as the expression that builds it. */
export function jsonLiteral(value: unknown, factory: ts.NodeFactory = ts.factory): ts.Expression {
  if (value === null) return factory.createNull();
  if (typeof value === 'string') return factory.createStringLiteral(value);
  if (typeof value === 'boolean') return value ? factory.createTrue() : factory.createFalse();
  if (typeof value === 'number') {
    const literal = factory.createNumericLiteral(Math.abs(value));
    return value < 0 ? factory.createPrefixUnaryExpression(ts.SyntaxKind.MinusToken, literal) : literal;
  }
  if (Array.isArray(value))
    return factory.createArrayLiteralExpression(value.map((item) => jsonLiteral(item, factory)));
  return factory.createObjectLiteralExpression(
    Object.entries(value as Record<string, unknown>).map(([key, item]) =>
      factory.createPropertyAssignment(factory.createStringLiteral(key), jsonLiteral(item, factory)),
    ),
  );
}
