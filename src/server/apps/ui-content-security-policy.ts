import type { UiResourceCsp } from '../../protocol/extensions/apps.js';

/**
 * The Content-Security-Policy a host puts around a UI (MCP Apps, SEP-1865): the spec's default, which lets the
 * document run its own inline scripts and styles and reach nothing else, widened by exactly the origins its
 * `_meta.ui.csp` declares. A widget that fetches from an origin it did not declare fails under it, as in a host.
 */
export function uiContentSecurityPolicy(csp: UiResourceCsp = {}): string {
  const resources = csp.resourceDomains ?? [];
  const list = (base: string[], extra: string[] | undefined) => {
    const sources = [...base, ...(extra ?? [])];
    return sources.length > 0 ? sources.join(' ') : "'none'";
  };
  return [
    "default-src 'none'",
    `script-src ${list(["'self'", "'unsafe-inline'", 'data:'], resources)}`,
    `style-src ${list(["'self'", "'unsafe-inline'", 'data:'], resources)}`,
    `img-src ${list(["'self'", 'data:', 'blob:'], resources)}`,
    `font-src ${list(["'self'", 'data:'], resources)}`,
    `media-src ${list(["'self'", 'data:', 'blob:'], resources)}`,
    `connect-src ${list([], csp.connectDomains)}`,
    `frame-src ${list([], csp.frameDomains)}`,
    `base-uri ${list(["'self'"], csp.baseUriDomains)}`,
    "object-src 'none'",
  ].join('; ');
}

/** The document with the policy as its first `<head>` element, so it covers every script and style. */
export function withContentSecurityPolicy(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replaceAll('"', '&quot;')}">`;
  const head = /<head[^>]*>/i.exec(html);
  if (head) return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length);
  return meta + html;
}
