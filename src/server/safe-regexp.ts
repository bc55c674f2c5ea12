import type { RegExpEngine } from 'ajv/dist/types/index.js';
// A named import: the CommonJS build must not look for a default export, which re2-wasm does not have.
import { RE2 } from 're2-wasm';

/**
 * The regular-expression engine for schema `pattern` and `patternProperties`: RE2 (WebAssembly, no native
 * build), which matches in time linear in the input. JavaScript's backtracking engine takes exponential time
 * on patterns like `^(a+)+$`, so one short argument could block the event loop for seconds (ReDoS, CVE-2025-69873
 * class). RE2 has no lookaround and no back-references: a schema using them fails to compile, at registration.
 */
export const safeRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => new RE2(pattern, flags.includes('u') ? flags : `${flags}u`),
  { code: 'new RE2' },
);
