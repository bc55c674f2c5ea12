import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findChromium, requireChromium } from '../../src/testing/find-chromium.js';

/**
 * Where `renderToolUi` and the browser tests find a Chromium, in order: CHROMIUM_PATH, Playwright's installed
 * browsers, the system's. Each case lays out fake executables in a folder of its own.
 */
describe('findChromium', () => {
  let root: string;
  const executable = (path: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o755);
    return path;
  };
  const at = (...parts: string[]) => join(root, ...parts);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'find-chromium-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('takes CHROMIUM_PATH before Playwright and the system', () => {
    const named = executable(at('named', 'chrome'));
    executable(at('pw', 'chromium-1200', 'chrome-linux64', 'chrome'));
    const system = [executable(at('usr', 'chromium'))];
    const env = { CHROMIUM_PATH: named, PLAYWRIGHT_BROWSERS_PATH: at('pw') };
    expect(findChromium({ env, platform: 'linux', home: root, systemPaths: system })).toBe(named);
  });

  it('refuses a CHROMIUM_PATH that names no executable rather than run another browser', () => {
    const env = { CHROMIUM_PATH: at('missing') };
    executable(at('usr', 'chromium'));
    expect(() => findChromium({ env, platform: 'linux', home: root, systemPaths: [at('usr', 'chromium')] })).toThrow(
      `CHROMIUM_PATH is ${at('missing')}, which is not an executable`,
    );
  });

  it("takes the newest of Playwright's browsers in PLAYWRIGHT_BROWSERS_PATH before the system's", () => {
    executable(at('pw', 'chromium-1100', 'chrome-linux', 'chrome'));
    const newest = executable(at('pw', 'chromium-1200', 'chrome-linux64', 'chrome'));
    executable(at('pw', 'chromium_headless_shell-1200', 'chrome-headless-shell-linux64', 'chrome-headless-shell'));
    executable(at('pw', 'firefox-1300', 'firefox', 'firefox'));
    const system = [executable(at('usr', 'chromium'))];
    const env = { PLAYWRIGHT_BROWSERS_PATH: at('pw') };
    expect(findChromium({ env, platform: 'linux', home: root, systemPaths: system })).toBe(newest);
  });

  it("finds a headless shell alone, in Playwright's cache folder under the home or XDG_CACHE_HOME", () => {
    const shell = executable(
      at('.cache', 'ms-playwright', 'chromium_headless_shell-1200', 'chrome-headless-shell-linux64', 'x'),
    );
    const real = executable(join(dirname(shell), 'chrome-headless-shell'));
    expect(findChromium({ env: {}, platform: 'linux', home: root, systemPaths: [] })).toBe(real);
    const xdg = executable(at('xdg', 'ms-playwright', 'chromium-1000', 'chrome-linux', 'chrome'));
    const env = { XDG_CACHE_HOME: at('xdg') };
    expect(findChromium({ env, platform: 'linux', home: root, systemPaths: [] })).toBe(xdg);
  });

  it("looks in macOS's cache folder for Playwright's Chrome for Testing", () => {
    const app = executable(
      at(
        'Library/Caches/ms-playwright/chromium-1200/chrome-mac-arm64',
        'Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
      ),
    );
    expect(findChromium({ env: {}, platform: 'darwin', home: root, systemPaths: [] })).toBe(app);
  });

  it("takes the first executable of the system's paths, skipping a file that cannot run", () => {
    writeFileSync(at('not-executable'), '');
    const chrome = executable(at('opt', 'google-chrome'));
    const systemPaths = [at('absent'), at('not-executable'), chrome, executable(at('usr', 'chromium'))];
    expect(findChromium({ env: {}, platform: 'linux', home: root, systemPaths })).toBe(chrome);
  });

  it('finds nothing, and then says where it looked and how to get a browser', () => {
    const search = { env: {}, platform: 'linux' as const, home: root, systemPaths: [at('usr', 'chromium')] };
    expect(findChromium(search)).toBeUndefined();
    expect(() => requireChromium('renderToolUi', search)).toThrow(
      `renderToolUi found no Chromium: it looked at CHROMIUM_PATH (unset), Playwright's browsers in ` +
        `${at('.cache', 'ms-playwright')}, and ${at('usr', 'chromium')}. Install one (\`npx playwright install ` +
        'chromium`, `apt-get install chromium`, or Google Chrome), or name one with CHROMIUM_PATH or the ' +
        'executablePath option.',
    );
  });
});
