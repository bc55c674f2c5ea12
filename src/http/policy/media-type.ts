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

// A client sends the same Accept on every POST, and parsing it was a measurable part of a 2025-era call on Fastify
// (about 5 µs): the verdicts for a few distinct headers are kept, bounded so that a client inventing headers only
// refills the map.
const acceptVerdicts = new Map<string, boolean>();
const MAX_REMEMBERED_ACCEPTS = 64;
const MAX_REMEMBERED_ACCEPT_LENGTH = 256;

/**
 * Whether an Accept header lists both JSON and SSE (directly or by a wildcard range), as a 2025-era client MUST
 * on every POST (2025-11-25 transports): the answer is JSON, or an SSE stream once the call notifies or asks the
 * client something, which the server cannot know in advance. The most specific range that matches a type
 * decides (RFC 9110 §12.5.1), and `q=0` means "not acceptable". No header at all lists neither.
 */
export function acceptsJsonAndEventStream(header: string | undefined): boolean {
  if (!header) return false;
  let verdict = acceptVerdicts.get(header);
  if (verdict === undefined) {
    const ranges = header.split(',').map(mediaRange);
    verdict = acceptable(ranges, 'application', 'json') && acceptable(ranges, 'text', 'event-stream');
    if (header.length <= MAX_REMEMBERED_ACCEPT_LENGTH) {
      if (acceptVerdicts.size >= MAX_REMEMBERED_ACCEPTS) acceptVerdicts.clear();
      acceptVerdicts.set(header, verdict);
    }
  }
  return verdict;
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function mediaRange(text: string): MediaRange {
  const [range, ...params] = text.split(';');
  const [type = '', subtype = ''] = range.trim().toLowerCase().split('/');
  let q = 1;
  for (const param of params) {
    const [name, value = ''] = param.split('=').map((s) => s.trim().toLowerCase());
    if (name === 'q') q = Number(value);
  }
  return { type, subtype, q: Number.isFinite(q) ? q : 0 };
}

function acceptable(ranges: readonly MediaRange[], type: string, subtype: string): boolean {
  let specificity = -1;
  let q = 0;
  for (const range of ranges) {
    const level =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (level > specificity) {
      specificity = level;
      q = range.q;
    }
  }
  return q > 0;
}
