import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PACKAGE_NAME = 'nestjs-mcp';
const nameByFolder = new Map<string, string | undefined>();

/**
 * Whether a file belongs to this package (installed, linked, or its own sources), or to the package named, by the
 * name in the nearest package.json: a decorator another library also calls `Tool` is not ours.
 */
export function isPackageFile(fileName: string, name = PACKAGE_NAME): boolean {
  return packageNameOf(dirname(fileName)) === name;
}

function packageNameOf(folder: string): string | undefined {
  if (nameByFolder.has(folder)) return nameByFolder.get(folder);
  let name: string | undefined;
  try {
    name = (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: string }).name;
  } catch {
    // No package.json here: the package is further up.
  }
  // A package.json without a name (the `"type"` marker of a build folder) is not the package's own.
  if (name === undefined) {
    const parent = dirname(folder);
    name = parent === folder ? undefined : packageNameOf(parent);
  }
  nameByFolder.set(folder, name);
  return name;
}
