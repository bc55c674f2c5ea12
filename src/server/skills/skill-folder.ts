import { lstat, open, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { SKILL_MANIFEST } from '../../protocol/skills.js';
import type { SkillLimits } from './skill-options.js';

/** One skill as read from storage: where it sits, and every file and folder in it, by path relative to it. */
export interface SkillFiles {
  /** The folders from the served root to the skill's own (its name last). */
  segments: string[];
  /** Every file, `SKILL.md` included, `/`-separated paths relative to the skill's folder. */
  files: Map<string, Uint8Array>;
  /** Every folder below the skill's own, relative paths. */
  folders: string[];
}

/** Most folder levels walked below the root: deeper trees are refused rather than followed. */
const MAX_DEPTH = 16;

/**
 * Reads a folder of skills once: each folder holding a `SKILL.md` is a skill, with everything below it; a
 * folder without one only groups skills (`acme/pdf-tools/SKILL.md` is `skill://acme/pdf-tools/SKILL.md`).
 * Files are copied into memory here and never read again, so nothing a request names reaches the file
 * system. Names starting with `.` are skipped; a symbolic link or any special file is a problem (never
 * followed, so nothing outside the folder is served), as is a skill over its limits. Returns the skills and
 * the problems found, one sentence each.
 */
export async function readSkillFolder(
  directory: string,
  limits: Required<SkillLimits>,
): Promise<{ skills: SkillFiles[]; problems: string[] }> {
  const root = await realpath(directory);
  const skills: SkillFiles[] = [];
  const problems: string[] = [];
  let total = 0;
  const visit = async (dir: string, segments: string[]): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    if (entries.some((entry) => entry.name === SKILL_MANIFEST && entry.isFile())) {
      if (segments.length === 0) {
        problems.push(`${SKILL_MANIFEST} at the root of ${root}: a skill is a folder below it`);
        return;
      }
      const skill = await readSkill(dir, segments, limits, limits.bytes).catch((error: Error) => error);
      if (skill instanceof Error) problems.push(`${segments.join('/')}: ${skill.message}`);
      else if ((total += bytesOf(skill)) > limits.totalBytes)
        problems.push(`${segments.join('/')}: the skills together exceed limits.totalBytes (${limits.totalBytes})`);
      else skills.push(skill);
      return;
    }
    if (segments.length >= MAX_DEPTH) {
      problems.push(`${segments.join('/')}: deeper than ${MAX_DEPTH} folders`);
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.') || !entry.isDirectory()) continue;
      await visit(join(dir, entry.name), [...segments, entry.name]);
    }
  };
  await visit(root, []);
  return { skills, problems };
}

async function readSkill(
  dir: string,
  segments: string[],
  limits: Required<SkillLimits>,
  budget: number,
): Promise<SkillFiles> {
  const files = new Map<string, Uint8Array>();
  const folders: string[] = [];
  const walk = async (path: string, relative: string, depth: number): Promise<void> => {
    for (const entry of (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue;
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        if (depth >= MAX_DEPTH) throw new Error(`${child} is deeper than ${MAX_DEPTH} folders`);
        folders.push(child);
        await walk(full, child, depth + 1);
      } else if (entry.isFile()) {
        if (files.size >= limits.files) throw new Error(`more than limits.files (${limits.files}) files`);
        const bytes = await readBounded(full, child, Math.min(budget, limits.fileBytes));
        budget -= bytes.byteLength;
        files.set(child, bytes);
      } else {
        throw new Error(`${child} is a symbolic link or special file, which is never followed; copy the file in`);
      }
    }
  };
  await walk(dir, '', 0);
  return { segments, files, folders };
}

/** A regular file's bytes, refused when over `max` (checked before and while reading, so it cannot grow past it). */
async function readBounded(path: string, label: string, max: number): Promise<Uint8Array> {
  const stat = await lstat(path);
  if (!stat.isFile()) throw new Error(`${label} is not a regular file`);
  if (stat.size > max) throw new Error(`${label} is ${stat.size} bytes, over the limit of ${max}`);
  const handle = await open(path, 'r');
  try {
    // One byte more than the size seen: a file that grows while being read fills it, and is refused.
    const buffer = Buffer.alloc(stat.size + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > stat.size) throw new Error(`${label} changed while being read`);
    }
    return new Uint8Array(buffer.subarray(0, length));
  } finally {
    await handle.close();
  }
}

function bytesOf(skill: SkillFiles): number {
  let total = 0;
  for (const bytes of skill.files.values()) total += bytes.byteLength;
  return total;
}
