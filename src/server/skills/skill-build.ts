import { createHash } from 'node:crypto';
import { DIRECTORY_MIME_TYPE, SKILL_MANIFEST, SKILL_URI_SCHEME } from '../../protocol/skills.js';
import type { DirectoryChild, SkillEntry } from '../../protocol/skills.js';
import type { Visible } from '../registry/visibility.js';
import type { SkillFiles } from './skill-folder.js';
import type { SkillManifest } from './skill-frontmatter.js';
import { mimeTypeOf } from './skill-mime.js';

/** One file of a served skill: its URI, and its content as sent (text when it is UTF-8, else bytes). */
export interface SkillFile {
  uri: string;
  name: string;
  mimeType: string;
  size: number;
  digest: string;
  content: string | Uint8Array;
}

/** A skill ready to serve: its entry (what hosts verify against), its files and its folders' children. */
export interface ServedSkill {
  entry: SkillEntry;
  manifest: SkillFile;
  files: SkillFile[];
  /** The children of the skill's folder and of each folder in it, by folder URI. */
  folders: Map<string, DirectoryChild[]>;
  requiredScopes?: string[];
  visible?: Visible;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Builds what is served of one skill from its files, once: every URI, the SHA-256 digest and size of every
 * file, and the folder listings, all sorted by URI (the one order of entries, children and pages). The
 * frontmatter's name must be the skill's folder, as hosts check.
 */
export function buildSkill(
  source: SkillFiles,
  manifest: SkillManifest,
  access: Pick<ServedSkill, 'requiredScopes' | 'visible'>,
): ServedSkill {
  const name = source.segments.at(-1);
  if (manifest.frontmatter.name !== name)
    throw new Error(`the frontmatter name "${manifest.frontmatter.name}" must be the skill's folder name "${name}"`);
  const root = skillUri(source.segments);
  const manifestFile = source.files.get(SKILL_MANIFEST);
  if (!manifestFile) throw new Error(`${SKILL_MANIFEST} is missing`);
  const folders = new Map<string, DirectoryChild[]>([[root, []]]);
  for (const path of source.folders) folders.set(`${root}/${encodePath(path)}`, []);
  for (const path of source.folders) childrenOf(folders, root, path).push(folderChild(root, path));
  const files: SkillFile[] = [];
  for (const [path, bytes] of source.files) {
    const file = fileOf(`${root}/${encodePath(path)}`, path, bytes);
    files.push(file);
    childrenOf(folders, root, path).push({ uri: file.uri, name: file.name, mimeType: file.mimeType, size: file.size });
  }
  files.sort(byUri);
  for (const children of folders.values()) children.sort(byUri);
  const own = files.find((file) => file.uri === `${root}/${SKILL_MANIFEST}`)!;
  return {
    entry: {
      uri: own.uri,
      frontmatter: manifest.frontmatter,
      resources: files.map(({ uri, digest, size }) => ({ uri, digest, size })),
    },
    manifest: own,
    files,
    folders,
    ...access,
  };
}

/** `skill://` and the segments, each percent-encoded, so no name can add or climb a level. */
export function skillUri(segments: readonly string[]): string {
  return `${SKILL_URI_SCHEME}${segments.map(encodeSegment).join('/')}`;
}

function encodePath(path: string): string {
  return path.split('/').map(encodeSegment).join('/');
}

function encodeSegment(segment: string): string {
  // A segment of dots alone would climb levels once a client resolves the URI: its dots are encoded too.
  return /^\.+$/.test(segment) ? segment.replaceAll('.', '%2E') : encodeURIComponent(segment);
}

function fileOf(uri: string, path: string, bytes: Uint8Array): SkillFile {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  return { uri, name, mimeType: mimeTypeOf(name), size: bytes.byteLength, digest, content: textOf(bytes) ?? bytes };
}

function textOf(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function childrenOf(folders: Map<string, DirectoryChild[]>, root: string, path: string): DirectoryChild[] {
  const parent = path.includes('/') ? `${root}/${encodePath(path.slice(0, path.lastIndexOf('/')))}` : root;
  return folders.get(parent)!;
}

function folderChild(root: string, path: string): DirectoryChild {
  return {
    uri: `${root}/${encodePath(path)}`,
    name: path.slice(path.lastIndexOf('/') + 1),
    mimeType: DIRECTORY_MIME_TYPE,
  };
}

function byUri(a: { uri: string }, b: { uri: string }): number {
  return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
}
