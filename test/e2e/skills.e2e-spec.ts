import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, UseGuards, type INestApplication } from '@nestjs/common';
import { parse } from 'yaml';
import { McpConfigurationError, McpModule, MCPServer, RequireScopes, Skill } from '../../src/index.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { createTestIssuer, ISSUER, RESOURCE, challengeParams, type TestIssuer } from '../support/auth-tokens.js';
import { HeaderUserGuard } from '../support/header-user-guard.js';
import { legacyPost, legacyRequest } from '../support/legacy-client.js';

const SKILLS = 'io.modelcontextprotocol/skills';
const PDF_SKILL = `---
name: pdf-processing
description: Extract text from PDFs. Use with PDF files.
license: Apache-2.0
metadata:
  author: tests
  version: "1.0"
---

# PDF

Read [the forms guide](references/FORMS.md).
`;
const FORMS = '# Forms\n\nFill each field by name.\n';
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]);

const sha256 = (bytes: string | Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A folder of skills on disk: pdf-processing (with a subfolder and a binary file) and acme/csv-tools. */
async function skillFolder(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'mcp-skills-'));
  await mkdir(join(root, 'pdf-processing', 'references'), { recursive: true });
  await writeFile(join(root, 'pdf-processing', 'SKILL.md'), PDF_SKILL);
  await writeFile(join(root, 'pdf-processing', 'references', 'FORMS.md'), FORMS);
  await writeFile(join(root, 'pdf-processing', 'logo.png'), LOGO);
  await writeFile(join(root, 'pdf-processing', '.hidden'), 'never served');
  await mkdir(join(root, 'acme', 'csv-tools'), { recursive: true });
  await writeFile(
    join(root, 'acme', 'csv-tools', 'SKILL.md'),
    '---\nname: csv-tools\ndescription: Work with CSV.\n---\nBody\n',
  );
  await writeFile(join(root, 'secret.txt'), 'outside every skill');
  return root;
}

@Injectable()
class CodeSkills {
  @Skill({ name: 'release-notes', description: 'Writes release notes.', frontmatter: { 'allowed-tools': 'git' } })
  notes() {
    return { body: '# Notes\n', files: { 'guides/STYLE.md': 'One line per change.' } };
  }

  @Skill({ name: 'admin-runbook', description: 'Only for signed-in users.' })
  @UseGuards(HeaderUserGuard)
  runbook() {
    return '# Runbook\n';
  }
}

describe.each(HTTP_ADAPTERS)('Skills (SEP-2640) on %s', (adapter) => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let root: string;

  beforeAll(async () => {
    root = await skillFolder();
    app = await createApp(
      [McpModule.forRoot({ name: 'skills', version: '1.0.0', skills: { directory: root }, limits: { pageSize: 1 } })],
      [CodeSkills],
      adapter,
    );
    mcp = createMcpTestClient(app);
  });
  afterAll(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  const request = async (method: string, params: Record<string, unknown> = {}, headers = {}) =>
    (await mcp.post(mcpMessage(method, params), headers)).body as {
      result?: Record<string, unknown> & { nextCursor?: string };
      error?: { code: number; message: string };
    };

  /** Every page of a list method (the server cuts pages of one item here). */
  async function pagesOf<T = { uri: string }>(method: string, key: string, params = {}, headers = {}) {
    const pages: T[][] = [];
    let cursor: string | undefined;
    do {
      const { result } = await request(method, cursor ? { ...params, cursor } : params, headers);
      expect(result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: expect.any(String) });
      pages.push(result![key] as T[]);
      cursor = result!.nextCursor;
    } while (cursor);
    return pages;
  }
  const allSkills = (headers = {}) => pagesOf('skills/list', 'skills', {}, headers);

  it('declares the extension inline, with directoryRead, beside the resources capability', async () => {
    const { result } = await request('server/discover');
    const capabilities = result!.capabilities as Record<string, Record<string, unknown>>;
    expect(capabilities.extensions[SKILLS]).toEqual({ directoryRead: true });
    expect(capabilities.resources).toBeDefined();
  });

  it('lists every skill as a whole entry per page, in URI order, guarded ones hidden', async () => {
    const pages = await allSkills();
    // A page is cut before a skill's guards run, so the hidden skill leaves its page empty rather than split.
    expect(pages).toHaveLength(4);
    expect(pages.every((page) => page.length <= 1)).toBe(true);
    expect(pages.flat().map((entry) => entry.uri)).toEqual([
      'skill://acme/csv-tools/SKILL.md',
      'skill://pdf-processing/SKILL.md',
      'skill://release-notes/SKILL.md',
    ]);
    const signedIn = (await allSkills({ 'x-user': 'ada' })).flat().map((entry) => entry.uri);
    expect(signedIn).toContain('skill://admin-runbook/SKILL.md');
  });

  it('gives each file its digest and size, and the frontmatter exactly as the file has it', async () => {
    const { result } = await request('skills/get', { uri: 'skill://pdf-processing/SKILL.md' });
    const skill = result!.skill as { frontmatter: unknown; resources: unknown };
    expect(result!.nextCursor).toBeUndefined();
    expect(skill.frontmatter).toEqual(parse(PDF_SKILL.split('---')[1]));
    expect(skill.resources).toEqual([
      { uri: 'skill://pdf-processing/SKILL.md', digest: sha256(PDF_SKILL), size: Buffer.byteLength(PDF_SKILL) },
      { uri: 'skill://pdf-processing/logo.png', digest: sha256(LOGO), size: LOGO.byteLength },
      { uri: 'skill://pdf-processing/references/FORMS.md', digest: sha256(FORMS), size: FORMS.length },
    ]);
  });

  it('writes the SKILL.md of a skill built in code so that its frontmatter parses back to the entry', async () => {
    const { result } = await request('skills/get', { uri: 'skill://release-notes/SKILL.md' });
    const skill = result!.skill as { frontmatter: Record<string, unknown> };
    const read = await request('resources/read', { uri: 'skill://release-notes/SKILL.md' });
    const text = (read.result!.contents as Array<{ text: string }>)[0].text;
    expect(parse(text.split('---')[1])).toEqual(skill.frontmatter);
    expect(skill.frontmatter).toEqual({
      name: 'release-notes',
      description: 'Writes release notes.',
      'allowed-tools': 'git',
    });
  });

  it('answers -32602 for a URI that is not a served skill, including guarded ones and files', async () => {
    for (const uri of [
      'skill://nope/SKILL.md',
      'skill://pdf-processing/references/FORMS.md',
      'skill://admin-runbook/SKILL.md',
      'not a uri',
    ]) {
      expect((await request('skills/get', { uri })).error?.code).toBe(-32602);
    }
    expect((await request('skills/get', {})).error?.code).toBe(-32602);
    expect(
      (await request('skills/get', { uri: 'skill://admin-runbook/SKILL.md' }, { 'x-user': 'ada' })).result,
    ).toBeDefined();
  });

  it('lists each SKILL.md as a resource named by its frontmatter; other files are read by URI only', async () => {
    const resources = (await pagesOf('resources/list', 'resources')).flat();
    expect(resources).toContainEqual({
      uri: 'skill://pdf-processing/SKILL.md',
      name: 'pdf-processing',
      description: 'Extract text from PDFs. Use with PDF files.',
      mimeType: 'text/markdown',
      size: Buffer.byteLength(PDF_SKILL),
    });
    const uris = resources.map((r) => r.uri);
    expect(uris).not.toContain('skill://pdf-processing/references/FORMS.md');
    const forms = await request('resources/read', { uri: 'skill://pdf-processing/references/FORMS.md' });
    expect(forms.result!.contents).toEqual([
      { uri: 'skill://pdf-processing/references/FORMS.md', mimeType: 'text/markdown', text: FORMS },
    ]);
    const logo = await request('resources/read', { uri: 'skill://pdf-processing/logo.png' });
    expect(logo.result!.contents).toEqual([
      { uri: 'skill://pdf-processing/logo.png', mimeType: 'image/png', blob: Buffer.from(LOGO).toString('base64') },
    ]);
  });

  it('lists a folder with its subfolders as directories, and refuses a file with -32602', async () => {
    const pages = await pagesOf('resources/directory/read', 'resources', { uri: 'skill://pdf-processing' });
    expect(pages).toHaveLength(3);
    expect(pages.flat()).toEqual([
      { uri: 'skill://pdf-processing/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: expect.any(Number) },
      { uri: 'skill://pdf-processing/logo.png', name: 'logo.png', mimeType: 'image/png', size: LOGO.byteLength },
      { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
    ]);
    const sub = await request('resources/directory/read', { uri: 'skill://pdf-processing/references' });
    expect((sub.result!.resources as Array<{ uri: string }>).map((r) => r.uri)).toEqual([
      'skill://pdf-processing/references/FORMS.md',
    ]);
    for (const uri of ['skill://pdf-processing/SKILL.md', 'skill://acme', 'skill://admin-runbook'])
      expect((await request('resources/directory/read', { uri })).error?.code).toBe(-32602);
  });

  it('serves nothing outside a skill: dot segments, encoded climbs, dotfiles and the folder root', async () => {
    for (const uri of [
      'skill://pdf-processing/../secret.txt',
      'skill://pdf-processing/%2E%2E/secret.txt',
      'skill://pdf-processing/references/../../secret.txt',
      'skill://secret.txt',
      'skill://pdf-processing/.hidden',
      'skill://pdf-processing/%2e%2e%2f%2e%2e%2fetc/passwd',
      `file://${root}/secret.txt`,
    ]) {
      const { result, error } = await request('resources/read', { uri });
      expect(result).toBeUndefined();
      expect(error?.code).toBe(-32602);
    }
    // A dot segment that resolves inside the skill reaches only what the skill serves anyway.
    const { result } = await request('resources/read', { uri: 'skill://pdf-processing/references/../SKILL.md' });
    expect((result?.contents as Array<{ text: string }> | undefined)?.[0].text ?? PDF_SKILL).toBe(PDF_SKILL);
  });

  it('runs a skill’s guards on reads of its files', async () => {
    expect((await request('resources/read', { uri: 'skill://admin-runbook/SKILL.md' })).error?.code).toBe(-32602);
    const read = await request('resources/read', { uri: 'skill://admin-runbook/SKILL.md' }, { 'x-user': 'ada' });
    expect((read.result!.contents as Array<{ text: string }>)[0].text).toContain('# Runbook');
  });

  it('declares the extension in a 2025-era initialize result too, and serves skills/list there', async () => {
    const init = await legacyPost(
      app,
      legacyRequest('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'legacy', version: '1' },
      }),
    );
    expect(init.body.result.capabilities.extensions[SKILLS]).toEqual({ directoryRead: true });
    const list = await legacyPost(app, legacyRequest('skills/list', {}));
    expect(list.body.result.skills[0].uri).toBe('skill://acme/csv-tools/SKILL.md');
    expect(list.body.result.ttlMs).toBeUndefined();
  });
});

describe('Skills added at run time', () => {
  it('serves a skill added through MCPServer and stops serving it once removed', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'runtime', version: '1.0.0' })]);
    const mcp = createMcpTestClient(app);
    const server = app.get(MCPServer);
    expect((await mcp.post(mcpMessage('skills/list'))).body.error.code).toBe(-32601);
    const uri = server.addSkill({ name: 'triage', description: 'Triage bugs.', body: 'Steps', prefix: 'team' });
    expect(uri).toBe('skill://team/triage/SKILL.md');
    const discovered = (await mcp.post(mcpMessage('server/discover'))).body.result;
    expect(discovered.capabilities.extensions[SKILLS]).toEqual({ directoryRead: true });
    expect((await mcp.post(mcpMessage('skills/list'))).body.result.skills).toHaveLength(1);
    expect(() => server.addSkill({ name: 'triage', description: 'Again.', body: '', prefix: 'team' })).toThrow(
      McpConfigurationError,
    );
    expect(server.removeSkill(uri)).toBe(true);
    // Nothing is left to read: the server has no resources at all any more.
    expect((await mcp.post(mcpMessage('resources/read', { uri }))).body.error.code).toBe(-32601);
    expect((await mcp.post(mcpMessage('skills/list'))).body.error.code).toBe(-32601);
    await app.close();
  });

  it('refuses broken skills at once, naming what is wrong', () => {
    const kernelApp = createApp([McpModule.forRoot({ name: 'broken', version: '1.0.0' })]);
    return kernelApp.then(async (app) => {
      const server = app.get(MCPServer);
      const add = (skill: Partial<Parameters<MCPServer['addSkill']>[0]>) => () =>
        server.addSkill({ name: 'ok', description: 'Fine.', body: '', ...skill });
      expect(add({ name: 'Bad_Name' })).toThrow(/lowercase letters/);
      expect(add({ description: '' })).toThrow(/description/);
      expect(add({ files: { '../escape.md': 'x' } })).toThrow(/below the skill's folder/);
      expect(add({ files: { 'a/./b.md': 'x' } })).toThrow(/below the skill's folder/);
      expect(add({ files: { 'SKILL.md': 'x' } })).toThrow(/SKILL.md/);
      await app.close();
    });
  });
});

describe('A folder of skills with problems', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mcp-skills-bad-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const start = () =>
    createApp([
      McpModule.forRoot({ name: 'bad', version: '1.0.0', skills: { directory: root, limits: { fileBytes: 64 } } }),
    ]);

  it('refuses a symbolic link inside a skill (never followed out of the folder)', async () => {
    await mkdir(join(root, 'linked'));
    await writeFile(join(root, 'linked', 'SKILL.md'), '---\nname: linked\ndescription: d\n---\n');
    await writeFile(join(root, 'outside.txt'), 'secret');
    await symlink(join(root, 'outside.txt'), join(root, 'linked', 'escape.txt'));
    await expect(start()).rejects.toThrow(/linked: escape.txt is a symbolic link/);
  });

  it('refuses a frontmatter name that is not the folder, and a file over the limit', async () => {
    await mkdir(join(root, 'one'));
    await writeFile(join(root, 'one', 'SKILL.md'), '---\nname: other\ndescription: d\n---\n');
    await mkdir(join(root, 'two'));
    await writeFile(join(root, 'two', 'SKILL.md'), '---\nname: two\ndescription: d\n---\n');
    await writeFile(join(root, 'two', 'big.txt'), 'x'.repeat(65));
    const error = await start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toMatch(/one: the frontmatter name "other" must be the skill's folder name "one"/);
    expect((error as Error).message).toMatch(/two: big.txt is 65 bytes, over the limit of 64/);
  });

  it('refuses frontmatter that is not YAML or lacks its fields', async () => {
    await mkdir(join(root, 'yaml'));
    await writeFile(join(root, 'yaml', 'SKILL.md'), '---\nname: [unclosed\n---\n');
    await mkdir(join(root, 'bare'));
    await writeFile(join(root, 'bare', 'SKILL.md'), '# no frontmatter\n');
    const message = ((await start().catch((e: unknown) => e)) as Error).message;
    expect(message).toMatch(/yaml: the frontmatter is not valid YAML/);
    expect(message).toMatch(/bare: SKILL.md must begin with a "---" line/);
  });
});

describe('Scoped skills', () => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let issuer: TestIssuer;
  let root: string;
  const bearer = async (scope?: string) => ({ authorization: `Bearer ${await issuer.token(scope ? { scope } : {})}` });

  @Injectable()
  class ScopedSkills {
    @Skill({ name: 'payroll', description: 'Runs payroll.' })
    @RequireScopes('hr:read')
    payroll() {
      return '# Payroll\n';
    }
  }

  beforeAll(async () => {
    issuer = await createTestIssuer();
    root = await skillFolder();
    app = await createApp(
      [
        McpModule.forRoot({
          name: 'scoped',
          version: '1.0.0',
          skills: { directory: root, requiredScopes: ['docs:read'] },
          auth: { resource: RESOURCE, authorizationServers: [ISSUER], jwt: { issuer: ISSUER, jwks: issuer.jwks } },
        }),
      ],
      [ScopedSkills],
    );
    mcp = createMcpTestClient(app);
  });
  afterAll(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists only the skills whose scopes the caller holds, privately', async () => {
    const none = (await mcp.post(mcpMessage('skills/list'), await bearer())).body.result;
    expect(none.skills).toEqual([]);
    const docs = (await mcp.post(mcpMessage('skills/list'), await bearer('docs:read'))).body.result;
    expect(docs.skills.map((s: { uri: string }) => s.uri)).toEqual([
      'skill://acme/csv-tools/SKILL.md',
      'skill://pdf-processing/SKILL.md',
    ]);
    expect(docs.cacheScope).toBe('private');
  });

  it('answers a read or get without the scope with the 403 challenge naming it', async () => {
    for (const [method, params] of [
      ['resources/read', { uri: 'skill://payroll/SKILL.md' }],
      ['skills/get', { uri: 'skill://payroll/SKILL.md' }],
    ] as const) {
      const res = await mcp.post(mcpMessage(method, params), await bearer('docs:read'));
      expect(res.status).toBe(403);
      expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
        error: 'insufficient_scope',
        scope: 'hr:read',
      });
    }
    const ok = await mcp.post(mcpMessage('skills/get', { uri: 'skill://payroll/SKILL.md' }), await bearer('hr:read'));
    expect(ok.body.result.skill.uri).toBe('skill://payroll/SKILL.md');
  });
});
