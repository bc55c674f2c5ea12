// RFC 3986 §2.3: characters whose percent-encoding is equivalent to the character itself.
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * The RFC 3986 §6.2.2 normal form of a URI, so equivalent spellings of one resource are one key: scheme and
 * host in lower case, percent-encodings of unreserved characters decoded and all others in upper-case hex,
 * and `.` / `..` segments removed from a hierarchical path (§5.2.4). The rest (path case, encoded reserved
 * characters such as `%2F`, the query) is significant and kept. A string without a scheme is returned as is.
 * `lowerCaseHost: false` keeps the host as given: custom schemes (`weather://{city}`) use it as data, so
 * templates are matched against that form, and only exact keys fold its case.
 */
export function normalizeUri(uri: string, lowerCaseHost = true): string {
  const scheme = SCHEME.exec(uri);
  if (!scheme) return uri;
  let rest = normalizePercentEncoding(uri.slice(scheme[0].length));
  const fragmentAt = rest.indexOf('#');
  const fragment = fragmentAt < 0 ? '' : rest.slice(fragmentAt);
  if (fragmentAt >= 0) rest = rest.slice(0, fragmentAt);
  const queryAt = rest.indexOf('?');
  const query = queryAt < 0 ? '' : rest.slice(queryAt);
  let path = queryAt < 0 ? rest : rest.slice(0, queryAt);
  let authority = '';
  if (path.startsWith('//')) {
    const end = path.indexOf('/', 2);
    authority = end < 0 ? path : path.slice(0, end);
    if (lowerCaseHost) authority = hostInLowerCase(authority);
    path = end < 0 ? '' : path.slice(end);
  }
  if (path.startsWith('/')) path = removeDotSegments(path);
  return `${scheme[1].toLowerCase()}:${authority}${path}${query}${fragment}`;
}

/**
 * A deliberately coarse key of a URI: normal form, then every percent-encoding decoded, backslashes read as
 * slashes, runs of slashes collapsed, dot segments removed and everything in lower case. Two URIs with one key
 * may reach the same data through a handler that decodes, joins paths or runs on a case-insensitive store, so
 * a template read whose key is a scoped resource's key needs that resource's scopes too.
 */
export function looseUriKey(uri: string): string {
  const normal = normalizeUri(uri);
  const scheme = SCHEME.exec(normal);
  const rest = decodeAll(scheme ? normal.slice(scheme[0].length) : normal)
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/');
  const path = rest.startsWith('/') ? removeDotSegments(rest) : rest;
  return `${scheme ? scheme[0] : ''}${path}`.toLowerCase();
}

/**
 * Whether a decoded template variable could take a handler that joins it to a path somewhere other than its
 * place in the template: a `.` or `..` segment, or an absolute path (a leading slash or backslash, a drive).
 */
export function escapesTemplate(value: string): boolean {
  if (/^(?:[/\\]|[A-Za-z]:)/.test(value)) return true;
  return value.split(/[/\\]/).some((segment) => segment === '.' || segment === '..');
}

function normalizePercentEncoding(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** The authority with its host in lower case (userinfo and port kept), percent-encodings still upper-case. */
function hostInLowerCase(authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = authority
    .slice(at + 1)
    .toLowerCase()
    .replace(/%[0-9a-f]{2}/g, (e) => e.toUpperCase());
  return `${authority.slice(0, at + 1)}${host}`;
}

/** RFC 3986 §5.2.4 for an absolute path. */
function removeDotSegments(path: string): string {
  const segments = path.split('/');
  const output: string[] = [];
  const last = segments.length - 1;
  for (let i = 1; i <= last; i++) {
    const segment = segments[i];
    if (segment === '.' || segment === '..') {
      if (segment === '..') output.pop();
      if (i === last) output.push('');
      continue;
    }
    output.push(segment);
  }
  return `/${output.join('/')}`;
}

/** Decodes every percent-encoded UTF-8 sequence; a sequence that is not valid UTF-8 stays as it is. */
function decodeAll(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}
