import { requireFromLibrary } from '../util/library-require.cjs';

/**
 * Loads an optional peer dependency on first use, so an app that never declares a zod or DTO schema needs
 * neither package installed. Fails at start-up with the install line when the package is missing.
 */
export async function optionalImport<T>(specifier: string, purpose: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw missingPackageError(error, specifier, purpose);
  }
}

/** `optionalImport` for a CommonJS package needed where the caller cannot wait (a synchronous registration). */
export function optionalRequire<T>(specifier: string, purpose: string): T {
  try {
    return requireFromLibrary(specifier) as T;
  } catch (error) {
    throw missingPackageError(error, specifier, purpose);
  }
}

/** The install line for a package that is not there; any other failure of loading it unchanged. */
function missingPackageError(error: unknown, specifier: string, purpose: string): unknown {
  const code = (error as { code?: string }).code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return error;
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
  return new Error(`${purpose} needs the optional package "${name}": npm install ${name}`, { cause: error });
}
