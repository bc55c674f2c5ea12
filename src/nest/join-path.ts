/** Joins URL path segments into one absolute path without doubled or trailing slashes. */
export function joinPath(...parts: string[]): string {
  const joined = parts
    .flatMap((p) => (p ?? '').split('/'))
    .filter(Boolean)
    .join('/');
  return `/${joined}`;
}
