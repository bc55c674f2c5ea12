/**
 * Loads an optional peer dependency on first use, so an app that never declares a zod or DTO schema needs
 * neither package installed. Fails at start-up with the install line when the package is missing.
 */
export async function optionalImport<T>(specifier: string, purpose: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
    throw new Error(`${purpose} needs the optional package "${name}": npm install ${name}`, { cause: error });
  }
}
