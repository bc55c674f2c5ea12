import { uiContentSecurityPolicy } from '../../src/testing/index.js';

describe('uiContentSecurityPolicy', () => {
  it('allows a UI that declared nothing its own inline code and data: URLs, and no network', () => {
    expect(uiContentSecurityPolicy().split('; ')).toEqual([
      "default-src 'none'",
      "script-src 'self' 'unsafe-inline' data:",
      "style-src 'self' 'unsafe-inline' data:",
      "img-src 'self' data: blob:",
      "font-src 'self' data:",
      "media-src 'self' data: blob:",
      "connect-src 'none'",
      "frame-src 'none'",
      "base-uri 'self'",
      "object-src 'none'",
    ]);
  });

  it('widens each directive by exactly the origins declared for it', () => {
    const policy = uiContentSecurityPolicy({
      connectDomains: ['https://api.example.com', 'wss://live.example.com'],
      resourceDomains: ['https://*.cdn.example.com'],
      frameDomains: ['https://www.youtube.com'],
      baseUriDomains: ['https://example.com'],
    }).split('; ');
    expect(policy).toContain('connect-src https://api.example.com wss://live.example.com');
    expect(policy).toContain("script-src 'self' 'unsafe-inline' data: https://*.cdn.example.com");
    expect(policy).toContain("img-src 'self' data: blob: https://*.cdn.example.com");
    expect(policy).toContain('frame-src https://www.youtube.com');
    expect(policy).toContain("base-uri 'self' https://example.com");
    expect(policy).toContain("default-src 'none'");
  });
});
