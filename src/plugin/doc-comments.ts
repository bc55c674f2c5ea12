import ts from 'typescript';

/** A symbol's JSDoc text (what an editor shows on hover), or undefined when it has none. */
export function docOf(symbol: ts.Symbol, checker: ts.TypeChecker): string | undefined {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  return text || undefined;
}

/** The text of a parameter's `@param` tag, without the `- ` many write after the name. */
export function paramDocOf(parameter: ts.ParameterDeclaration): string | undefined {
  for (const tag of ts.getJSDocParameterTags(parameter)) {
    const text = ts
      .getTextOfJSDocComment(tag.comment)
      ?.replace(/^\s*-\s*/, '')
      .trim();
    if (text) return text;
  }
  return undefined;
}

/** The JSON value a literal expression denotes (a default value, a decorator argument), else undefined. */
export function literalValueOf(node: ts.Expression): unknown {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (
    ts.isPrefixUnaryExpression(node) &&
    node.operator === ts.SyntaxKind.MinusToken &&
    ts.isNumericLiteral(node.operand)
  ) {
    return -Number(node.operand.text);
  }
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (node.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(node)) {
    const items = node.elements.map((element) => literalValueOf(element));
    return items.every((item) => item !== undefined) ? items : undefined;
  }
  if (ts.isObjectLiteralExpression(node)) {
    const out: Record<string, unknown> = {};
    for (const property of node.properties) {
      if (!ts.isPropertyAssignment(property) || ts.isComputedPropertyName(property.name)) return undefined;
      const value = literalValueOf(property.initializer);
      if (value === undefined) return undefined;
      out[property.name.text] = value;
    }
    return out;
  }
  if (ts.isAsExpression(node) || ts.isParenthesizedExpression(node) || ts.isSatisfiesExpression(node)) {
    return literalValueOf(node.expression);
  }
  return undefined;
}
