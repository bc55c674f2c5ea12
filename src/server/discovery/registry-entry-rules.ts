import type { Icon, Implementation } from '../../protocol/mcp-types.js';
import { REGISTRY_ENTRY } from '../errors/configuration-messages.js';
import type { RegistryServerJsonOptions as EntrySources } from './registry-server-json.js';

// The MCP Registry's rules for server.json (schema 2025-12-11 and what it checks when an entry is published).
const NAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]\/[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$/;
// A range, not a version: an operator first, a wildcard component (`1.x`, `1.*`), a hyphen range, or `||`.
const VERSION_RANGE = /^\s*[\^~<>=]|(^|\.)[*xX](\.|-|$)|\s-\s|\|\|/;
export const REGISTRY_ICON_TYPES = ['image/png', 'image/jpeg', 'image/jpg', 'image/svg+xml', 'image/webp'] as const;
const ICON_SIZE = /^(\d+x\d+|any)$/;
const FORGES: Record<string, RegExp> = {
  github: /^https?:\/\/(www\.)?github\.com\/[\w.-]+\/[\w.-]+\/?$/,
  gitlab: /^https?:\/\/(www\.)?gitlab\.com\/[\w.-]+(\/[\w.-]+)+\/?$/,
};
const SUBFOLDER = /^[a-zA-Z0-9_./-]+$/;
const MAX_PUBLISHER_BYTES = 4096;

/** Every field of the entry the registry would refuse, each with what it must be; empty when it would take it. */
export function registryRefusals(info: Implementation, sources: EntrySources): string[] {
  return [...identityRefusals(info), ...placeRefusals(sources), ...provenanceRefusals(sources)];
}

function identityRefusals(info: Implementation): string[] {
  const problems: string[] = [];
  if (!NAME.test(info.name) || info.name.length < 3 || info.name.length > 200)
    problems.push(REGISTRY_ENTRY.name(info.name));
  if (!info.description || characters(info.description) > 100) problems.push(REGISTRY_ENTRY.description);
  if (info.title !== undefined && (info.title.trim() === '' || characters(info.title) > 100))
    problems.push(REGISTRY_ENTRY.title);
  if (!isExactVersion(info.version)) problems.push(REGISTRY_ENTRY.version('version', info.version));
  if (info.websiteUrl !== undefined && !isHttpsUrl(info.websiteUrl))
    problems.push(REGISTRY_ENTRY.websiteUrl(info.websiteUrl));
  info.icons?.forEach((icon, i) => problems.push(...iconRefusals(icon, i)));
  return problems;
}

function iconRefusals({ src, mimeType, sizes, theme }: Icon, i: number): string[] {
  const problems: string[] = [];
  if (typeof src !== 'string' || src.length > 255 || !isHttpsUrl(src)) problems.push(REGISTRY_ENTRY.iconSrc(i, src));
  if (mimeType !== undefined && !(REGISTRY_ICON_TYPES as readonly string[]).includes(mimeType))
    problems.push(REGISTRY_ENTRY.iconMimeType(i, mimeType, REGISTRY_ICON_TYPES));
  if (sizes !== undefined && !(Array.isArray(sizes) && sizes.every((size) => ICON_SIZE.test(size))))
    problems.push(REGISTRY_ENTRY.iconSizes(i));
  if (theme !== undefined && theme !== 'light' && theme !== 'dark') problems.push(REGISTRY_ENTRY.iconTheme(i));
  return problems;
}

/** The remote and the package: where the server runs. */
function placeRefusals({ url, npm }: EntrySources): string[] {
  const problems: string[] = [];
  if (url === undefined && npm === undefined) problems.push(REGISTRY_ENTRY.nowhere);
  if (url !== undefined && !isPublicRemote(url)) problems.push(REGISTRY_ENTRY.url(url));
  if (npm) {
    if (typeof npm.identifier !== 'string' || npm.identifier.trim() === '' || /\s/.test(npm.identifier))
      problems.push(REGISTRY_ENTRY.npm(npm.identifier));
    // Without its own version the package is published at the server's, already checked above.
    if (npm.version !== undefined && !isExactVersion(npm.version))
      problems.push(REGISTRY_ENTRY.version('npm.version', npm.version));
  }
  return problems;
}

/** The repository and the publisher's own data. */
function provenanceRefusals({ repository, publisherProvided }: EntrySources): string[] {
  const problems: string[] = [];
  if (repository) {
    const { url, source } = repository;
    const forge = typeof source === 'string' && Object.hasOwn(FORGES, source) ? FORGES[source] : undefined;
    if (!forge) problems.push(REGISTRY_ENTRY.repositorySource(source));
    if (typeof url !== 'string' || !isUrl(url) || (forge && !forge.test(url)))
      problems.push(REGISTRY_ENTRY.repositoryUrl(url));
    if (repository.subfolder !== undefined && !isCleanSubfolder(repository.subfolder))
      problems.push(REGISTRY_ENTRY.repositorySubfolder(repository.subfolder));
  }
  if (publisherProvided !== undefined) {
    const size = publisherBytes(publisherProvided);
    if (size === undefined || size > MAX_PUBLISHER_BYTES) problems.push(REGISTRY_ENTRY.publisherProvided(size));
  }
  return problems;
}

function isExactVersion(version: unknown): boolean {
  return (
    typeof version === 'string' &&
    version.trim() !== '' &&
    version !== 'latest' &&
    version.length <= 255 &&
    !VERSION_RANGE.test(version)
  );
}

function isUrl(text: string): boolean {
  return URL.canParse(text) && !/\s/.test(text);
}

function isHttpsUrl(text: string): boolean {
  return isUrl(text) && new URL(text).protocol === 'https:';
}

/** The registry lists only remotes anyone can reach: https, not a loopback name, no template to fill in. */
function isPublicRemote(url: string): boolean {
  if (!isHttpsUrl(url) || url.includes('{')) return false;
  const host = new URL(url).hostname;
  return host !== 'localhost' && !host.endsWith('.localhost') && host !== '127.0.0.1' && host !== '[::1]';
}

function isCleanSubfolder(path: unknown): boolean {
  return (
    typeof path === 'string' &&
    SUBFOLDER.test(path) &&
    path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
  );
}

/**
 * The size the registry measures: its JSON with `<`, `>`, `&`, U+2028 and U+2029 escaped as `\uXXXX`, as its
 * encoder writes them; undefined when the value is not a JSON object.
 */
function publisherBytes(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return undefined;
  }
  const escaped = json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return Buffer.byteLength(escaped, 'utf8');
}

/** Length as JSON Schema counts it: in code points. */
function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
