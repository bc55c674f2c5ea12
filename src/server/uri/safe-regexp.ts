import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { loadRE2 } from './re2-loader.js';

/**
 * The regular-expression engine for schema `pattern` and `patternProperties`: RE2 (WebAssembly, no native
 * build), which matches in time linear in the input. JavaScript's backtracking engine takes exponential time
 * on patterns like `^(a+)+$`, so one short argument could block the event loop for seconds (ReDoS, CVE-2025-69873
 * class). RE2 has no lookaround and no back-references: a schema using them fails to compile, at registration.
 */
export const safeRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const RE2 = loadRE2();
    return new RE2(pattern, flags.includes('u') ? flags : `${flags}u`);
  },
  { code: 'new RE2' },
);
