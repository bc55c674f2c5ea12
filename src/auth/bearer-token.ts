// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The Bearer token of an `Authorization` header: undefined when the request carries no Bearer credentials
 * (no header, or another scheme), null when it claims to but the token is malformed. Only the header is read:
 * tokens in the query string or the body are never accepted (MCP authorization, RFC 6750 §2.3).
 */
export function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*(\S+)(?:\s+(.*))?$/.exec(header);
  if (!match || match[1].toLowerCase() !== 'bearer') return undefined;
  const token = (match[2] ?? '').trim();
  return B64TOKEN.test(token) ? token : null;
}
