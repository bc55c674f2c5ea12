import { SetMetadata } from '@nestjs/common';
import type { McpSkill } from '../../server/skills/skill-options.js';
import { MCP_SKILL_METADATA } from '../mcp-metadata.constants.js';

/** What `@Skill` declares; the method supplies the rest. */
export type SkillOptions = Omit<McpSkill, 'body' | 'files' | 'visible' | 'requiredScopes'>;

/** What a `@Skill` method returns: the markdown of `SKILL.md` after its frontmatter, or that and its other files. */
export type SkillContent = string | { body: string; files?: Record<string, string | Uint8Array> };

/**
 * Declares a provider method as a skill (SEP-2640) built in code: the method runs once, at start-up, and
 * returns the skill's instructions (`SkillContent`); the server writes its `SKILL.md` from `options` and serves
 * it at `skill://<prefix>/<name>/SKILL.md`. `@RequireScopes` and the method's guards decide, per request, who
 * lists and reads it, as for a resource.
 */
export function Skill(options: SkillOptions): MethodDecorator {
  return SetMetadata(MCP_SKILL_METADATA, options);
}
