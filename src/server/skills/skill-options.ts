import type { Visible } from '../registry/visibility.js';

/** What one skill, and a folder of them, may hold; a skill over a limit is refused at start-up. */
export interface SkillLimits {
  /** Files per skill, `SKILL.md` included. Default 512 (what hosts must accept). */
  files?: number;
  /** Bytes per skill, all files together. Default 16 MiB (what hosts must accept). */
  bytes?: number;
  /** Bytes of one file. Default 4 MiB. */
  fileBytes?: number;
  /** Bytes of every skill of the folder together. Default 64 MiB. */
  totalBytes?: number;
}

export const DEFAULT_SKILL_LIMITS: Required<SkillLimits> = {
  files: 512,
  bytes: 16 * 1024 * 1024,
  fileBytes: 4 * 1024 * 1024,
  totalBytes: 64 * 1024 * 1024,
};

/**
 * The `skills` option (SEP-2640): the server declares the Skills extension and serves these skills as
 * `skill://` resources, with `skills/list`, `skills/get` and `resources/directory/read`.
 */
export interface McpSkillsOptions {
  /** A folder of skills, read once at start-up: each folder below it holding a `SKILL.md` is one skill. */
  directory?: string;
  /** Folders put before every skill of `directory` in its URI: `'acme'` serves `skill://acme/<name>/SKILL.md`. */
  prefix?: string;
  /** Serve `resources/directory/read` and declare `directoryRead: true`. Default true. */
  directoryRead?: boolean;
  /** OAuth scopes a caller needs to list or read the skills of `directory`. */
  requiredScopes?: string[];
  limits?: SkillLimits;
}

/** A skill built in code (`MCPServer.addSkill`, `@Skill`): its `SKILL.md` is written from these fields. */
export interface McpSkill {
  /** The skill's name, its folder in the URI: 1-64 lowercase letters, digits and single hyphens. */
  name: string;
  /** What the skill does and when to use it (1-1024 characters): what a host shows the model. */
  description: string;
  /** The markdown of `SKILL.md` after its frontmatter: the instructions. */
  body: string;
  /** More frontmatter (`license`, `compatibility`, `metadata`, `allowed-tools`, ...), written as given. */
  frontmatter?: Record<string, unknown>;
  /** The skill's other files by path below its folder (`references/FORMS.md`); text or bytes. */
  files?: Record<string, string | Uint8Array>;
  /** Folders before the name in the URI: `'acme'` serves `skill://acme/<name>/SKILL.md`. */
  prefix?: string;
  /** OAuth scopes a caller needs to list or read this skill. */
  requiredScopes?: string[];
  /** Decides per request whether the caller sees the skill (`@Skill` methods: their guards); hidden is unknown. */
  visible?: Visible;
}
