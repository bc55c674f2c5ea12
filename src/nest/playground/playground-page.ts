import { createHash } from 'node:crypto';
import { PLAYGROUND_NOT_BUILT } from '../mcp-messages.js';
import { PLAYGROUND_PAGE_PLACES } from './playground-assets.cjs';

/** A document the playground serves, with the headers it is served with. */
export interface PlaygroundDocument {
  status: number;
  body: string;
  headers: Record<string, string>;
}

const COMMON_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Where an MCP Apps view runs. The page cannot put a view in an `srcdoc` iframe as hosts do, because such a
 * document inherits the page's own policy, which allows no inline script but the page's. So the view's iframe
 * loads this shell, which writes the document the page sends it. The shell's own policy is the widest a view
 * may be given; the page narrows it by the view's `_meta.ui.csp` (a `<meta>` policy written first into the
 * document). `sandbox allow-scripts` gives the shell an opaque origin even when something other than the
 * page frames it, and the shell writes only what its parent sends once it has checked that it is framed and
 * sandboxed, so nothing written there runs with the app's origin.
 */
const FRAME_SHELL = `<!doctype html><html><head><meta charset="utf-8"><script>
if (window.parent !== window && window.origin === 'null') {
  window.addEventListener('message', function render(event) {
    if (event.source !== window.parent || !event.data || event.data.type !== 'nestjs-mcp/playground-view') return;
    window.removeEventListener('message', render);
    document.open();
    document.write(event.data.html);
    document.close();
  });
}
</script></head><body></body></html>`;

/**
 * The page and its view bridge's script (as built, or undefined when no build of them was found) and the view
 * shell, hashed once at start-up.
 */
export class PlaygroundPage {
  readonly page: PlaygroundDocument;
  /** The MCP Apps view bridge, which the page loads only to show a tool's view. */
  readonly bridge: PlaygroundDocument;
  readonly frame: PlaygroundDocument = {
    status: 200,
    body: FRAME_SHELL,
    headers: {
      ...COMMON_HEADERS,
      'content-security-policy':
        "sandbox allow-scripts; default-src * data: blob: 'unsafe-inline'; frame-ancestors 'self'",
    },
  };

  /** Why the page cannot be served (a source checkout that was never built), or undefined. */
  readonly missing: string | undefined;

  constructor(built: { html: string; bridge: string } | undefined) {
    if (built !== undefined) {
      this.page = {
        status: 200,
        body: built.html,
        headers: { ...COMMON_HEADERS, 'content-security-policy': pagePolicy(built.html) },
      };
      this.bridge = {
        status: 200,
        body: built.bridge,
        headers: { ...COMMON_HEADERS, 'content-type': 'text/javascript; charset=utf-8' },
      };
      return;
    }
    // Only a checkout run from its sources lacks it (the package ships it): the app starts, and the page says why.
    this.missing = PLAYGROUND_NOT_BUILT(PLAYGROUND_PAGE_PLACES);
    this.page = {
      status: 503,
      body: this.missing,
      headers: {
        ...COMMON_HEADERS,
        'content-type': 'text/plain; charset=utf-8',
        'content-security-policy': "default-src 'none'",
      },
    };
    this.bridge = this.page;
  }
}

/**
 * The page's own policy: its inline script and style by hash and nothing else of its own, but for the scripts
 * that script adds itself (`'strict-dynamic'`: the view bridge it loads to show a view; a script in markup,
 * injected or not, still runs only by hash; `'self'` is for browsers older than `'strict-dynamic'`, which load
 * the bridge from the origin by it, while newer ones ignore it); requests only to its origin (the endpoint); images and audio of
 * results as `data:`; views only in the shell beside it.
 */
function pagePolicy(html: string): string {
  const hashes = (tag: string) =>
    [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))]
      .map(([, text]) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`)
      .join(' ');
  return [
    "default-src 'none'",
    `script-src ${hashes('script')} 'strict-dynamic' 'self'`,
    `style-src ${hashes('style')}`,
    "connect-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' data: blob:",
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
