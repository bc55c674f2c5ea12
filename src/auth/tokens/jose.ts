import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { JOSE_UNAVAILABLE } from '../../server/errors/configuration-messages.js';
export type Jose = typeof import('jose');

/**
 * Loads `jose` (ESM-only) on first use, so an app without `auth.jwt` never loads it, and turns a runtime that
 * cannot import ESM from CommonJS (jest's CommonJS runtime without `--experimental-vm-modules`) into a
 * start-up error that says what to do.
 */
export async function loadJose(): Promise<Jose> {
  try {
    // The loader itself is CommonJS, which every runtime can load (the CommonJS build turns this into require()).
    const { importJose } = await import('./jose-loader.cjs');
    return await importJose();
  } catch (error) {
    throw new McpConfigurationError(JOSE_UNAVAILABLE((error as Error).message), { cause: error });
  }
}
