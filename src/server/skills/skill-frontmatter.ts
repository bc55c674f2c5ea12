import { isPlainObject } from '../../protocol/jsonrpc.js';
import { optionalRequire } from '../schema/optional-import.js';

interface YamlModule {
  parse(text: string, options: { schema: string; maxAliasCount: number; uniqueKeys: boolean }): unknown;
}

/** Agent Skills' name rule: 1-64 lowercase letters, digits and single hyphens. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_DESCRIPTION = 1024;
/** A key YAML reads as the same string unquoted (not a boolean or null). */
const PLAIN_KEY = /^(?!(?:true|false|null)$)[A-Za-z_][\w-]*$/i;

/** What a `SKILL.md` says of its skill: the frontmatter as JSON, verbatim, and the markdown after it. */
export interface SkillManifest {
  frontmatter: { name: string; description: string } & Record<string, unknown>;
  body: string;
}

/**
 * Reads a `SKILL.md`: a `---` line, YAML (the 1.2 core schema, as hosts read it), a closing `---` line, then
 * markdown. Throws a sentence naming what is wrong; the YAML parser (`yaml`, an optional peer) is loaded only
 * when a folder of skills is served.
 */
export function parseSkillManifest(text: string): SkillManifest {
  const unix = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replaceAll('\r\n', '\n');
  if (!unix.startsWith('---\n')) throw new Error('SKILL.md must begin with a "---" line');
  const close = /^---[\t ]*$/m.exec(unix.slice(4));
  if (!close) throw new Error('the frontmatter has no closing "---" line');
  const yaml = unix.slice(4, 4 + close.index);
  const body = unix.slice(4 + close.index + close[0].length).replace(/^\n/, '');
  const { parse } = optionalRequire<YamlModule>('yaml', 'Serving skills from a folder (SKILL.md frontmatter)');
  let frontmatter: unknown;
  try {
    // Aliases are few in real frontmatter; a document built of them is refused rather than expanded.
    frontmatter = parse(yaml, { schema: 'core', maxAliasCount: 16, uniqueKeys: true });
  } catch (error) {
    throw new Error(`the frontmatter is not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  if (!isPlainObject(frontmatter)) throw new Error('the frontmatter must be a mapping of keys to values');
  checkFrontmatter(frontmatter);
  return { frontmatter, body };
}

/** The rules every skill's frontmatter meets, whoever wrote it; throws the first one broken. */
export function checkFrontmatter(
  frontmatter: Record<string, unknown>,
): asserts frontmatter is SkillManifest['frontmatter'] {
  const { name, description } = frontmatter;
  if (typeof name !== 'string' || name.length > 64 || !SKILL_NAME.test(name))
    throw new Error(`the name ${JSON.stringify(name)} must be 1-64 lowercase letters, digits and single hyphens`);
  if (typeof description !== 'string' || description.length === 0 || [...description].length > MAX_DESCRIPTION)
    throw new Error(`the description must be a string of 1-${MAX_DESCRIPTION} characters`);
}

/**
 * A `SKILL.md` for a skill built in code: each frontmatter key on its own line with its value as JSON, which is
 * YAML too, so a host parsing the file gets exactly `frontmatter` back.
 */
export function renderSkillManifest(frontmatter: Record<string, unknown>, body: string): string {
  const lines = Object.entries(frontmatter)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${PLAIN_KEY.test(key) ? key : JSON.stringify(key)}: ${JSON.stringify(value)}`);
  return `---\n${lines.join('\n')}\n---\n\n${body}`;
}
