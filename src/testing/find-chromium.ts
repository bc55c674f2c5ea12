import { accessSync, constants, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where `findChromium` looks; each field defaults to this machine's, and tests point them at folders of their own. */
export interface ChromiumSearch {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
  /** The system's browsers, in order of preference. */
  systemPaths?: readonly string[];
}

/**
 * The executables a Playwright browser folder (`chromium-<revision>`, `chromium_headless_shell-<revision>`) holds,
 * across the layouts Playwright has used: Chrome for Testing builds now, Chromium snapshots before.
 */
const PLAYWRIGHT_EXECUTABLES = [
  'chrome-linux64/chrome',
  'chrome-linux-arm64/chrome',
  'chrome-linux/chrome',
  'chrome-headless-shell-linux64/chrome-headless-shell',
  'chrome-headless-shell-linux-arm64/chrome-headless-shell',
  'chrome-linux/headless_shell',
  'chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
  'chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
  'chrome-mac/Chromium.app/Contents/MacOS/Chromium',
  'chrome-headless-shell-mac-arm64/chrome-headless-shell',
  'chrome-headless-shell-mac-x64/chrome-headless-shell',
  'chrome-win64/chrome.exe',
  'chrome-win/chrome.exe',
  'chrome-headless-shell-win64/chrome-headless-shell.exe',
];

function systemChromiums(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string[] {
  if (platform === 'darwin')
    return [
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    ];
  if (platform === 'win32')
    return [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA]
      .filter((dir): dir is string => !!dir)
      .map((dir) => join(dir, 'Google', 'Chrome', 'Application', 'chrome.exe'));
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/snap/bin/chromium',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/opt/google/chrome/chrome',
  ];
}

/** Playwright's browser folder: `PLAYWRIGHT_BROWSERS_PATH`, else the cache folder its installer uses. */
function playwrightBrowsersDir(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string {
  if (env.PLAYWRIGHT_BROWSERS_PATH && env.PLAYWRIGHT_BROWSERS_PATH !== '0') return env.PLAYWRIGHT_BROWSERS_PATH;
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'ms-playwright');
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'ms-playwright');
  return join(env.XDG_CACHE_HOME ?? join(home, '.cache'), 'ms-playwright');
}

/** Playwright's Chromium builds, the newest revision first, the full browser before the headless shell. */
function playwrightChromiums(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const builds = entries
    .map((name) => /^(chromium|chromium_headless_shell)-(\d+)$/.exec(name))
    .filter((match) => match !== null)
    .sort((a, b) => Number(b[2]) - Number(a[2]) || a[1].length - b[1].length);
  return builds.flatMap((match) => PLAYWRIGHT_EXECUTABLES.map((file) => join(dir, match[0], file)));
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Every place `findChromium` looks, in order: what its error lists. */
function chromiumCandidates(search: ChromiumSearch): { playwright: string; system: string[] } {
  const env = search.env ?? process.env;
  const platform = search.platform ?? process.platform;
  return {
    playwright: playwrightBrowsersDir(platform, env, search.home ?? homedir()),
    system: [...(search.systemPaths ?? systemChromiums(platform, env))],
  };
}

/**
 * The Chromium to run, where CI runners and developers keep one: `CHROMIUM_PATH`, else the newest of Playwright's
 * installed browsers (`PLAYWRIGHT_BROWSERS_PATH`, else Playwright's cache folder), else the system's Chromium or
 * Google Chrome. `undefined` when there is none. A `CHROMIUM_PATH` that names no executable throws: the user
 * asked for that browser, and another would be a surprise.
 */
export function findChromium(search: ChromiumSearch = {}): string | undefined {
  const fromEnv = (search.env ?? process.env).CHROMIUM_PATH;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`CHROMIUM_PATH is ${fromEnv}, which is not an executable: point it at a Chromium or unset it`);
  }
  const { playwright, system } = chromiumCandidates(search);
  return [...playwrightChromiums(playwright), ...system].find(isExecutable);
}

/** `findChromium`, or an error that says where it looked and how to get a browser. */
export function requireChromium(caller: string, search: ChromiumSearch = {}): string {
  const found = findChromium(search);
  if (found) return found;
  const { playwright, system } = chromiumCandidates(search);
  throw new Error(
    `${caller} found no Chromium: it looked at CHROMIUM_PATH (unset), Playwright's browsers in ${playwright}, ` +
      `and ${system.join(', ')}. Install one (\`npx playwright install chromium\`, \`apt-get install chromium\`, ` +
      `or Google Chrome), or name one with CHROMIUM_PATH or the executablePath option.`,
  );
}
