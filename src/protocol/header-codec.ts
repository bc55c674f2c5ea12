/**
 * The SEP-2243 header value codec. A value wrapped as `=?base64?…?=` carries UTF-8 in base64; anything else is
 * literal. Decoding is strict (alphabet, padding, canonical form) because Node's Buffer.from skips junk, and a
 * lenient decoder would let two different headers match one body value.
 */
const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// RFC 9110 field-value characters: visible ASCII, space and tab (no CR, LF or other controls).
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

export type DecodedHeader = { readonly ok: true; readonly value: string } | { readonly ok: false };

// A client names the same tool request after request: the last value's verdict is kept rather than the value
// matched against the patterns again on every request.
let lastRaw: string | undefined;
let lastDecoded: DecodedHeader = { ok: false };

export function decodeHeaderValue(raw: string): DecodedHeader {
  if (raw !== lastRaw) {
    lastDecoded = decode(raw);
    lastRaw = raw;
  }
  return lastDecoded;
}

function decode(raw: string): DecodedHeader {
  if (!FIELD_VALUE.test(raw)) return { ok: false };
  if (!(
    raw.startsWith(SENTINEL_PREFIX) &&
    raw.endsWith(SENTINEL_SUFFIX) &&
    raw.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length
  )) {
    return { ok: true, value: raw };
  }
  const encoded = raw.slice(SENTINEL_PREFIX.length, raw.length - SENTINEL_SUFFIX.length);
  if (!BASE64.test(encoded)) return { ok: false };
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.toString('base64') !== encoded) return { ok: false };
  const value = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return { ok: true, value: value.decode(bytes) };
  } catch {
    return { ok: false };
  }
}

export type HeaderBag = Record<string, string | string[] | undefined>;

/** A header's single value; a repeated header is not a single value and reads as malformed. */
export function singleHeader(headers: HeaderBag, lowerName: string): string | undefined | null {
  const value = headers[lowerName];
  if (Array.isArray(value)) return value.length === 1 ? value[0] : null;
  return value;
}

// A value survives literally when it is visible ASCII without leading or trailing whitespace (which HTTP
// trims) and does not itself look like the sentinel; anything else travels base64-wrapped.
const LITERAL_SAFE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

/** Encodes a value for `Mcp-Name` or `Mcp-Param-*`, as a client does: literal when safe, else the sentinel. */
export function encodeHeaderValue(value: string): string {
  if (LITERAL_SAFE.test(value) && !value.startsWith(SENTINEL_PREFIX)) return value;
  return `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/**
 * The text of a -32020 error that tells the fix: which header, the exact value the body implies (as a client
 * must send it) and where that comes from, and what arrived. `expected` undefined means the header must be
 * absent; `got` undefined means it is missing, null that it is repeated.
 */
export function headerMismatchText(
  header: string,
  expected: string | undefined,
  source: string,
  got: string | undefined | null,
): string {
  const arrived =
    got === undefined
      ? 'none'
      : got === null
        ? 'the header repeated'
        : `${quote(got)}${decodeHeaderValue(got).ok ? '' : ', which is malformed'}`;
  if (expected === undefined) return `${header} must be absent (${source} is absent), got ${arrived}`;
  const wire = encodeHeaderValue(expected);
  const from = wire === expected ? source : `${source} ${quote(expected)}, base64-wrapped`;
  return `${header} must be ${quote(wire)} (${from}), got ${arrived}`;
}

// Body values can be long: the message shows enough to recognise one.
const quote = (value: string): string => JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);
