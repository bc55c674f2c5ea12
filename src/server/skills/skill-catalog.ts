import { SKILL_MANIFEST } from '../../protocol/skills.js';
import type { DirectoryChild, SkillEntry } from '../../protocol/skills.js';
import { checkRequiredScopes } from '../access/required-scopes.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import {
  DUPLICATE_SKILL,
  REGISTRATION_FAILED,
  SKILL_FOLDER_PROBLEMS,
  SKILL_FOLDER_UNREADABLE,
} from '../errors/configuration-messages.js';
import { PagedList } from '../registry/paged-list.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { normalizeUri } from '../uri/uri-normalization.js';
import { buildSkill, type ServedSkill, type SkillFile } from './skill-build.js';
import { readSkillFolder } from './skill-folder.js';
import { checkFrontmatter, parseSkillManifest, renderSkillManifest } from './skill-frontmatter.js';
import { DEFAULT_SKILL_LIMITS, type McpSkill, type McpSkillsOptions } from './skill-options.js';

interface Folder {
  skill: ServedSkill;
  pages: PagedList<DirectoryChild>;
}

/**
 * The skills a server serves. Each skill's files go into the resource registry (its `SKILL.md` listed, the
 * others readable by URI), so `resources/read`, scopes and caching treat them as any resource; the catalog
 * keeps the entries (`skills/list`, `skills/get`) and the folder listings (`resources/directory/read`).
 * Everything is built when a skill is added, never per request.
 */
export class SkillCatalog {
  private readonly skills = new Map<string, ServedSkill>();
  private readonly folders = new Map<string, Folder>();
  readonly listing: PagedList<SkillEntry>;

  constructor(
    private readonly options: McpSkillsOptions | undefined,
    private readonly resources: ResourceRegistry,
    private readonly pageSize: number,
  ) {
    this.listing = new PagedList(
      () => [...this.skills.values()].map((s) => s.entry).sort((a, b) => (a.uri < b.uri ? -1 : 1)),
      pageSize,
      'skills',
      (entry) => this.skills.get(normalizeUri(entry.uri)),
    );
  }

  /** Whether the server declares the extension: the `skills` option is set, or a skill was added in code. */
  get enabled(): boolean {
    return this.options !== undefined || this.skills.size > 0;
  }

  get directoryRead(): boolean {
    return this.options?.directoryRead !== false;
  }

  /** Reads the `directory` option's folder (once, at start-up); any problem fails start-up, naming each one. */
  async load(): Promise<void> {
    const directory = this.options?.directory;
    if (directory === undefined) return;
    const limits = { ...DEFAULT_SKILL_LIMITS, ...this.options!.limits };
    const prefix = this.options!.prefix?.split('/').filter((s) => s !== '') ?? [];
    const read = await readSkillFolder(directory, limits).catch((error: Error) => {
      throw new McpConfigurationError(SKILL_FOLDER_UNREADABLE(directory, error.message));
    });
    const problems = [...read.problems];
    const requiredScopes = checkRequiredScopes('skills', this.options!.requiredScopes);
    for (const files of read.skills) {
      const place = files.segments.join('/');
      try {
        const text = new TextDecoder('utf-8', { fatal: true }).decode(files.files.get(SKILL_MANIFEST));
        const skill = buildSkill({ ...files, segments: [...prefix, ...files.segments] }, parseSkillManifest(text), {
          requiredScopes,
        });
        this.add(skill);
      } catch (error) {
        problems.push(`${place}: ${(error as Error).message}`);
      }
    }
    if (problems.length > 0) throw new McpConfigurationError(SKILL_FOLDER_PROBLEMS(directory, problems));
  }

  /** A skill built in code; its `SKILL.md` is written from its fields. Throws on a broken or duplicate skill. */
  addSkill(skill: McpSkill): string {
    const owner = `Skill "${String(skill?.name)}"`;
    try {
      // name and description first, as a folder's SKILL.md has them, and never overridden by `frontmatter`.
      const own = { name: skill.name, description: skill.description };
      const frontmatter: Record<string, unknown> = Object.assign({ ...own }, skill.frontmatter, own);
      checkFrontmatter(frontmatter);
      if (typeof skill.body !== 'string') throw new Error('body must be a string');
      const encoder = new TextEncoder();
      const files = new Map<string, Uint8Array>([
        [SKILL_MANIFEST, encoder.encode(renderSkillManifest(frontmatter, skill.body))],
      ]);
      const folders = new Set<string>();
      for (const [path, content] of Object.entries(skill.files ?? {})) {
        const segments = path.split('/');
        if (path === SKILL_MANIFEST || segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\')))
          throw new Error(`file path "${path}" must be relative, below the skill's folder, and not ${SKILL_MANIFEST}`);
        for (let i = 1; i < segments.length; i++) folders.add(segments.slice(0, i).join('/'));
        files.set(path, typeof content === 'string' ? encoder.encode(content) : content);
      }
      const prefix = skill.prefix?.split('/').filter((s) => s !== '') ?? [];
      const requiredScopes = checkRequiredScopes(owner, skill.requiredScopes);
      const built = buildSkill(
        { segments: [...prefix, skill.name], files, folders: [...folders].sort() },
        { frontmatter, body: skill.body },
        { requiredScopes, visible: skill.visible },
      );
      this.add(built);
      return built.entry.uri;
    } catch (error) {
      if (error instanceof McpConfigurationError) throw error;
      throw new McpConfigurationError(REGISTRATION_FAILED(owner, (error as Error).message), { cause: error });
    }
  }

  /** Takes a skill away, its resources with it; false when none is served at `uri`. */
  remove(uri: string): boolean {
    const skill = this.skills.get(normalizeUri(uri));
    if (!skill) return false;
    for (const file of skill.files) this.resources.removeResource(file.uri);
    for (const folder of skill.folders.keys()) this.folders.delete(normalizeUri(folder));
    this.skills.delete(normalizeUri(uri));
    this.listing.invalidate();
    return true;
  }

  /** The skill whose `SKILL.md` is at `uri`. */
  get(uri: string): ServedSkill | undefined {
    return this.skills.get(normalizeUri(uri));
  }

  /** The folder at `uri` (a skill's own or one inside it), with its skill. */
  folder(uri: string): Folder | undefined {
    return this.folders.get(normalizeUri(uri));
  }

  private add(skill: ServedSkill): void {
    const key = normalizeUri(skill.entry.uri);
    if (this.skills.has(key)) throw new McpConfigurationError(DUPLICATE_SKILL(skill.entry.uri));
    const added: string[] = [];
    try {
      for (const file of skill.files) {
        this.resources.addResource(this.resourceOf(skill, file), file === skill.manifest);
        added.push(file.uri);
      }
    } catch (error) {
      for (const uri of added) this.resources.removeResource(uri);
      throw error;
    }
    this.skills.set(key, skill);
    for (const [uri, children] of skill.folders) {
      const pages = new PagedList(() => children, this.pageSize, 'directory');
      this.folders.set(normalizeUri(uri), { skill, pages });
    }
    this.listing.invalidate();
  }

  /** Each file is seen by whoever sees the skill: `resources/list` and reads apply the skill's own rule. */
  private resourceOf(skill: ServedSkill, file: SkillFile) {
    const content = file.content;
    const manifest = file === skill.manifest;
    return {
      uri: file.uri,
      name: manifest ? skill.entry.frontmatter.name : file.name,
      description: manifest ? skill.entry.frontmatter.description : undefined,
      mimeType: file.mimeType,
      size: file.size,
      requiredScopes: skill.requiredScopes,
      visible: skill.visible,
      handler: () => content,
    };
  }
}
