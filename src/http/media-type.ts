/** Parses the media type properly (not a substring match): JSON, and UTF-8 if a charset is named. */
export function checkMediaType(header: string | undefined): string | null {
  if (header === 'application/json') return null;
  if (!header) return 'Unsupported Media Type: Content-Type must be application/json';
  const [type, ...params] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/json') {
    return `Unsupported Media Type: Content-Type must be application/json, got "${type.trim()}"`;
  }
  for (const param of params) {
    // A parameter may come without a value (`; charset`).
    const [name, value = ''] = param.split('=').map((s) => s.trim().toLowerCase());
    if (name === 'charset' && value.replace(/"/g, '') !== 'utf-8') return `Unsupported charset "${value}": use utf-8`;
  }
  return null;
}
