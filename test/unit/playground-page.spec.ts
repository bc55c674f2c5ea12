import { createHash } from 'node:crypto';
import { PlaygroundPage } from '../../src/nest/playground/playground-page.js';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('PlaygroundPage', () => {
  it("allows the built page's inline script and style by their hashes, and nothing else of its own", () => {
    const script = 'console.log("page")';
    const style = 'body{margin:0}';
    const page = new PlaygroundPage({
      html: `<html><head><style>${style}</style></head><body><script>${script}</script></body></html>`,
      bridge: 'window.bridge = 1',
    });
    expect(page.missing).toBeUndefined();
    expect(page.page.status).toBe(200);
    const policy = page.page.headers['content-security-policy'].split('; ');
    // The view bridge is a script the page adds itself, when it shows a view.
    expect(policy).toContain(`script-src ${sha256(script)} 'strict-dynamic' 'self'`);
    expect(policy).toContain(`style-src ${sha256(style)}`);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(page.bridge).toMatchObject({ status: 200, body: 'window.bridge = 1' });
    expect(page.bridge.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'x-content-type-options': 'nosniff',
    });
  });

  it('answers 503 saying how to build it when no build of the page was found', () => {
    const page = new PlaygroundPage(undefined);
    expect(page.missing).toMatch(
      /^McpModule: the playground page is not built \(looked for .*index\.html\); .*npm run build$/,
    );
    expect(page.page.status).toBe(503);
    expect(page.page.body).toBe(page.missing);
    expect(page.page.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(page.bridge.status).toBe(503);
  });

  it('serves the view shell sandboxed whoever frames it', () => {
    const { frame } = new PlaygroundPage(undefined);
    expect(frame.headers['content-security-policy']).toBe(
      "sandbox allow-scripts; default-src * data: blob: 'unsafe-inline'; frame-ancestors 'self'",
    );
    expect(frame.body).toContain("window.origin === 'null'");
  });
});
