/** Every start-up failure's message, in one place: each names where the problem is and how to fix it. */

/** `legacy.mode` from a flat `legacy: 'off'` reads `{ legacy: { mode: 'off' } }`. */
function grouped(place: string): string {
  const path = place.split('.');
  return path.reduceRight((inner, key) => `{ ${key}: ${inner} }`, '…');
}

export const MOVED_OPTION = (where: string, key: string, place: string) =>
  `${where}: option "${key}" is now "${place}"; write ${grouped(place)} instead`;

export const MISSING_IDENTITY = 'MCP server options need a "name" and a "version" (strings)';

export const INVALID_LEGACY_MODE = (mode: unknown) =>
  `MCP option legacy.mode must be 'stateless' or 'off', got ${JSON.stringify(mode)}`;
