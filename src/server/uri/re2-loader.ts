import type { RE2 } from 're2-wasm';
import { requireFromLibrary } from '../util/library-require.cjs';

let engine: typeof RE2 | undefined;

/**
 * re2-wasm, loaded on the first pattern that needs it: instantiating its WebAssembly costs more start-up time
 * than building the kernel, and a server without schema patterns or resource templates never needs it.
 */
export function loadRE2(): typeof RE2 {
  // A named export: re2-wasm has no default export.
  return (engine ??= (requireFromLibrary('re2-wasm') as { RE2: typeof RE2 }).RE2);
}
