import type { RE2 } from 're2-wasm';
import { loadRE2 } from './re2-loader.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { URI_TEMPLATE_WITHOUT_VARIABLE } from '../errors/configuration-messages.js';

/**
 * RFC 6570 matching for resource templates: simple `{var}` expressions (level 1) match one path segment,
 * reserved `{+var}` match anything, and `{?a,b}` query expressions bind query parameters. Parsed (and refused
 * when malformed) at registration; the pattern is compiled on the first match, once.
 */
export class UriTemplate {
  readonly variables: readonly string[];
  private readonly source: string;
  private pattern: RE2 | undefined;
  private readonly queryNames: readonly string[];

  constructor(readonly template: string) {
    const variables: string[] = [];
    const queryNames: string[] = [];
    let source = '';
    let last = 0;
    for (const match of template.matchAll(/\{([+#?&]?)([A-Za-z0-9_.,]+)\}/g)) {
      source += escapeRegExp(template.slice(last, match.index));
      last = match.index + match[0].length;
      const [, operator, names] = match;
      if (operator === '?' || operator === '&') {
        queryNames.push(...names.split(','));
        source += '(?:[?&].*)?';
        continue;
      }
      for (const name of names.split(',')) variables.push(name);
      const one = operator === '+' || operator === '#' ? '(.+?)' : '([^/?#]+)';
      source += names
        .split(',')
        .map(() => one)
        .join(',');
    }
    source += escapeRegExp(template.slice(last));
    if (/[{}]/.test(template.slice(last)) || variables.length + queryNames.length === 0) {
      throw new McpConfigurationError(URI_TEMPLATE_WITHOUT_VARIABLE(template));
    }
    this.source = `^${source}$`;
    this.variables = variables;
    this.queryNames = queryNames;
  }

  match(uri: string): Record<string, string> | null {
    // RE2, not RegExp: adjacent variables (`{a}{b}{c}`) backtrack polynomially, so one crafted URI could
    // block the event loop for seconds (the CVE-2026-0621 class); RE2 matches in linear time.
    this.pattern ??= new (loadRE2())(this.source, 'u');
    const match = this.pattern.exec(uri);
    if (!match) return null;
    const values: Record<string, string> = Object.create(null);
    try {
      this.variables.forEach((name, i) => (values[name] = decodeURIComponent(match[i + 1] ?? '')));
      if (this.queryNames.length > 0) {
        const query = new URLSearchParams(uri.includes('?') ? uri.slice(uri.indexOf('?') + 1) : '');
        for (const name of this.queryNames) {
          const value = query.get(name);
          if (value !== null) values[name] = value;
        }
      }
    } catch {
      return null;
    }
    return values;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
