import type { MetaObject } from './mcp-types.js';

/**
 * The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): a server serves folders of instructions
 * (a `SKILL.md` and its files) as `skill://` resources, lists them with `skills/list` and answers one with
 * `skills/get`; `resources/directory/read` (optional, `directoryRead: true`) lists a folder's children.
 */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
export const SKILLS_LIST_METHOD = 'skills/list';
export const SKILLS_GET_METHOD = 'skills/get';
export const DIRECTORY_READ_METHOD = 'resources/directory/read';
/** The `mimeType` of a directory resource. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';
export const SKILL_MANIFEST = 'SKILL.md';
export const SKILL_URI_SCHEME = 'skill://';

/** One file of a skill, with what a host needs to verify it: `sha256:<64 hex>` of its bytes and their length. */
export interface SkillResourceEntry {
  uri: string;
  digest: string;
  size: number;
}

/** A skill as `skills/list` and `skills/get` carry it: its `SKILL.md` URI, frontmatter as JSON, every file. */
export interface SkillEntry {
  uri: string;
  frontmatter: { name: string; description: string } & Record<string, unknown>;
  resources: SkillResourceEntry[];
  _meta?: MetaObject;
}

/** A child of a directory resource. */
export interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}

export interface ListSkillsResult {
  skills: SkillEntry[];
  nextCursor?: string;
  _meta?: MetaObject;
}

export interface GetSkillResult {
  skill: SkillEntry;
  _meta?: MetaObject;
}

export interface ReadDirectoryResult {
  resources: DirectoryChild[];
  nextCursor?: string;
  _meta?: MetaObject;
}
