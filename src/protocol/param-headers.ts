import { decodeHeaderValue, headerMismatchText, singleHeader, type HeaderBag } from './header-codec.js';
import { isPlainObject } from './jsonrpc.js';
import type { JsonSchema } from './mcp-types.js';

/** One `x-mcp-header` annotation of a tool's input schema, resolved once at registration. */
export interface ParamHeaderRule {
  header: string;
  lowerName: string;
  path: readonly string[];
  type: 'string' | 'integer' | 'boolean';
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ALLOWED_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * Reads the `x-mcp-header` annotations of an input schema. Clients drop tools whose annotations are invalid,
 * so an invalid one is a registration error here rather than a tool that silently disappears downstream.
 */
export function extractParamHeaderRules(schema: JsonSchema): ParamHeaderRule[] {
  const rules: ParamHeaderRule[] = [];
  const seen = new Set<string>();
  const walk = (node: unknown, path: string[]): void => {
    if (!isPlainObject(node)) return;
    if (path.length > 0 && 'x-mcp-header' in node) {
      const header = node['x-mcp-header'];
      const where = path.join('.');
      if (typeof header !== 'string' || !TOKEN.test(header)) {
        throw new Error(`x-mcp-header on "${where}" must be a non-empty HTTP token, got ${JSON.stringify(header)}`);
      }
      const type = node.type;
      if (typeof type !== 'string' || !ALLOWED_TYPES.has(type)) {
        throw new Error(
          `x-mcp-header on "${where}" needs type string, integer or boolean, got ${JSON.stringify(type)}`,
        );
      }
      const lowerName = `mcp-param-${header.toLowerCase()}`;
      if (seen.has(lowerName)) throw new Error(`x-mcp-header "${header}" is used twice (names are case-insensitive)`);
      seen.add(lowerName);
      rules.push({ header, lowerName, path, type: type as ParamHeaderRule['type'] });
    }
    // Only `properties` keys lead to an annotatable value: items, combinators and $ref do not.
    if (isPlainObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) walk(child, [...path, key]);
    }
  };
  walk(schema, []);
  assertNoAnnotationsOffPath(schema, false);
  return rules;
}

function assertNoAnnotationsOffPath(node: unknown, offPath: boolean): void {
  if (Array.isArray(node)) {
    for (const item of node) assertNoAnnotationsOffPath(item, true);
    return;
  }
  if (!isPlainObject(node)) return;
  if (offPath && 'x-mcp-header' in node) {
    throw new Error('x-mcp-header is only allowed on properties reachable through "properties" keys');
  }
  for (const [key, child] of Object.entries(node)) {
    if (key === 'properties' && isPlainObject(child)) {
      for (const prop of Object.values(child)) assertNoAnnotationsOffPath(prop, offPath);
    } else if (key !== 'x-mcp-header') {
      assertNoAnnotationsOffPath(child, true);
    }
  }
}

/** The value at a property path of the arguments, or undefined when any step is missing. */
export function readPath(args: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function matches(rule: ParamHeaderRule, headerValue: string, bodyValue: unknown): boolean {
  switch (rule.type) {
    case 'string':
      return typeof bodyValue === 'string' && headerValue === bodyValue;
    case 'boolean':
      return typeof bodyValue === 'boolean' && headerValue === String(bodyValue);
    case 'integer': {
      if (typeof bodyValue !== 'number' || headerValue.trim() === '') return false;
      return Number(headerValue) === bodyValue;
    }
  }
}

/** Returns a mismatch description, or null when every `Mcp-Param-*` header agrees with the arguments. */
export function checkParamHeaders(
  rules: readonly ParamHeaderRule[],
  args: Record<string, unknown>,
  headers: HeaderBag,
): string | null {
  for (const rule of rules) {
    const bodyValue = readPath(args, rule.path);
    const raw = singleHeader(headers, rule.lowerName);
    const absent = bodyValue === undefined || bodyValue === null;
    if (absent && raw === undefined) continue;
    const decoded = raw == null ? undefined : decodeHeaderValue(raw);
    if (!absent && decoded?.ok === true && matches(rule, decoded.value, bodyValue)) continue;
    const expected = absent ? undefined : String(bodyValue);
    return headerMismatchText(`Mcp-Param-${rule.header}`, expected, `params.arguments.${rule.path.join('.')}`, raw);
  }
  return null;
}
