import 'reflect-metadata';
import { Injectable, UseGuards, type INestApplication, type Type } from '@nestjs/common';
import { McpModule, Prompt, Resource, ResourceTemplate, Skill, Tool } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { HeaderUserGuard } from '../support/header-user-guard.js';
import { legacyPost, legacyRequest } from '../support/legacy-client.js';

/** Everything the guard protects is named `staff…`: an answer a denied caller gets must not mention it. */
const HIDDEN = 'staff';
const ALLOWED = { 'x-user': 'ada' };

/**
 * One of each primitive behind `HeaderUserGuard`, beside open ones. `flag` is spread into each decorator: per
 * method (`hideWhenDenied`) or nothing, for the module's `hideForbidden`.
 */
function catalogOf(flag: { hideWhenDenied?: boolean }): Type<unknown> {
  @Injectable()
  class Catalog {
    @Tool({ name: 'open-tool', description: 'Anyone' })
    openTool() {
      return 'open';
    }

    @Tool({ name: 'staff-tool', description: 'Staff only', ...flag })
    @UseGuards(HeaderUserGuard)
    staffTool() {
      return 'staff answer';
    }

    @Prompt({ name: 'open-prompt' })
    openPrompt() {
      return 'open';
    }

    @Prompt({ name: 'staff-prompt', arguments: [{ name: 'year' }], complete: { year: () => ['2026'] }, ...flag })
    @UseGuards(HeaderUserGuard)
    staffPrompt() {
      return 'staff prompt';
    }

    @Resource({ uri: 'file:///open.txt', name: 'open-notes' })
    openNotes() {
      return 'open';
    }

    @Resource({ uri: 'file:///staff.txt', name: 'staff-notes', ...flag })
    @UseGuards(HeaderUserGuard)
    staffNotes() {
      return 'staff notes';
    }

    @ResourceTemplate({ uriTemplate: 'open:///{id}', name: 'open-records' })
    openRecords() {
      return 'open';
    }

    @ResourceTemplate({ uriTemplate: 'staff:///{id}', name: 'staff-records', complete: { id: () => ['42'] }, ...flag })
    @UseGuards(HeaderUserGuard)
    staffRecords() {
      return 'staff record';
    }

    @Skill({ name: 'open-guide', description: 'For everyone.' })
    openGuide() {
      return '# Guide\n';
    }

    @Skill({ name: 'staff-runbook', description: 'Staff only.' })
    @UseGuards(HeaderUserGuard)
    staffRunbook() {
      return { body: '# Runbook\n', files: { 'steps/ONE.md': 'Step one.' } };
    }
  }
  return Catalog;
}

/** Each list method, where its items are, and the guarded ones an allowed caller sees there. */
const LISTS: Array<[method: string, key: string, guarded: string[]]> = [
  ['tools/list', 'tools', ['staff-tool']],
  ['prompts/list', 'prompts', ['staff-prompt']],
  ['resources/list', 'resources', ['staff-notes', 'staff-runbook']],
  ['resources/templates/list', 'resourceTemplates', ['staff-records']],
  ['skills/list', 'skills', ['skill://staff-runbook/SKILL.md']],
];

/** The guarded items of a list (by name, or URI for skills). */
const guardedIn = (items: Array<Record<string, string>>) =>
  items.map((item) => item.name ?? item.uri).filter((id) => id.includes(HIDDEN));

const CONFIGURATIONS: Array<[string, { hideForbidden?: boolean }, { hideWhenDenied?: boolean }]> = [
  ['hideWhenDenied on each primitive', {}, { hideWhenDenied: true }],
  ['the module option hideForbidden', { hideForbidden: true }, {}],
];

describe.each(HTTP_ADAPTERS)('One visibility rule for every list, on %s', (adapter) => {
  describe.each(CONFIGURATIONS)('with %s', (_label, moduleOptions, flag) => {
    let app: INestApplication;

    beforeAll(async () => {
      app = await createApp(
        [
          McpModule.forRoot({
            name: 'catalog',
            version: '1.0.0',
            // Reads are private by default: public ones show that a hidden primitive's read stays private.
            lists: { cache: { resources: { cacheScope: 'public', ttlMs: 60_000 } } },
            ...moduleOptions,
          }),
        ],
        [catalogOf(flag)],
        adapter,
      );
    });
    afterAll(() => app.close());

    const post = async (method: string, params: Record<string, unknown>, headers = {}) =>
      (await createMcpTestClient(app).post(mcpMessage(method, params), headers)).body as {
        result?: Record<string, any>;
        error?: { code: number; message: string; data?: unknown };
      };
    const legacy = async (method: string, params: Record<string, unknown>, headers = {}) =>
      (await legacyPost(app, legacyRequest(method, params, 7), headers)).body as { result?: Record<string, any> };

    it('leaves the guarded primitive out of every 2026-07-28 list for a denied caller, privately', async () => {
      for (const [method, key, guarded] of LISTS) {
        const denied = await post(method, {});
        expect({ method, shown: guardedIn(denied.result![key]) }).toEqual({ method, shown: [] });
        expect(JSON.stringify(denied)).not.toContain(HIDDEN);
        expect({ method, scope: denied.result!.cacheScope }).toEqual({ method, scope: 'private' });
        const allowed = await post(method, {}, ALLOWED);
        expect({ method, shown: guardedIn(allowed.result![key]) }).toEqual({ method, shown: guarded });
        expect(allowed.result!.cacheScope).toBe('private');
      }
      expect(JSON.stringify(await post('server/discover', {}))).not.toContain(HIDDEN);
    });

    it('leaves it out of every 2025-era list alike', async () => {
      for (const [method, key, guarded] of LISTS) {
        const denied = await legacy(method, {});
        expect({ method, shown: guardedIn(denied.result![key]) }).toEqual({ method, shown: [] });
        expect(JSON.stringify(denied)).not.toContain(HIDDEN);
        const allowed = await legacy(method, {}, ALLOWED);
        expect({ method, shown: guardedIn(allowed.result![key]) }).toEqual({ method, shown: guarded });
      }
    });

    it('answers a 2025-era subscription to a hidden resource as one to a URI the server does not serve', async () => {
      const subscribe = async (uri: string, headers = {}) =>
        JSON.stringify(await legacy('resources/subscribe', { uri }, headers));
      for (const [hidden, unknown] of [
        ['file:///staff.txt', 'file:///nothing.txt'],
        ['skill://staff-runbook/SKILL.md', 'skill://nothing/SKILL.md'],
      ]) {
        const denied = (await subscribe(hidden)).replace(/staff(-runbook)?/g, 'nothing');
        expect({ hidden, answer: denied }).toEqual({ hidden, answer: await subscribe(unknown) });
        expect(JSON.parse(await subscribe(hidden, ALLOWED)).result).toEqual({});
      }
    });

    it('answers every request naming a hidden primitive as for one the server does not have', async () => {
      const named: Array<[method: string, hidden: Record<string, unknown>, unknown: Record<string, unknown>]> = [
        ['tools/call', { name: 'staff-tool', arguments: {} }, { name: 'nothing', arguments: {} }],
        ['prompts/get', { name: 'staff-prompt' }, { name: 'nothing' }],
        ['resources/read', { uri: 'file:///staff.txt' }, { uri: 'file:///nothing.txt' }],
        ['resources/read', { uri: 'staff:///42' }, { uri: 'nothing:///42' }],
        ['resources/read', { uri: 'skill://staff-runbook/SKILL.md' }, { uri: 'skill://nothing/SKILL.md' }],
        ['resources/read', { uri: 'skill://staff-runbook/steps/ONE.md' }, { uri: 'skill://nothing/steps/ONE.md' }],
        ['skills/get', { uri: 'skill://staff-runbook/SKILL.md' }, { uri: 'skill://nothing/SKILL.md' }],
        ['resources/directory/read', { uri: 'skill://staff-runbook' }, { uri: 'skill://nothing' }],
        [
          'completion/complete',
          { ref: { type: 'ref/prompt', name: 'staff-prompt' }, argument: { name: 'year', value: '' } },
          { ref: { type: 'ref/prompt', name: 'nothing' }, argument: { name: 'year', value: '' } },
        ],
        [
          'completion/complete',
          { ref: { type: 'ref/resource', uri: 'staff:///{id}' }, argument: { name: 'id', value: '' } },
          { ref: { type: 'ref/resource', uri: 'nothing:///{id}' }, argument: { name: 'id', value: '' } },
        ],
      ];
      for (const [method, hidden, unknown] of named) {
        const denied = JSON.stringify(await post(method, hidden)).replace(/staff(-runbook|-prompt|-tool)?/g, 'nothing');
        const absent = JSON.stringify(await post(method, unknown));
        expect({ method, answer: denied }).toEqual({ method, answer: absent });
        const allowed = await post(method, hidden, ALLOWED);
        expect({ method, allowed: allowed.error }).toEqual({ method, allowed: undefined });
        expect(allowed.result?.isError).not.toBe(true);
      }
    });

    it('keeps a read of a hidden primitive out of shared caches', async () => {
      for (const uri of ['skill://staff-runbook/SKILL.md', 'file:///staff.txt']) {
        const read = await post('resources/read', { uri }, ALLOWED);
        expect({ uri, scope: read.result!.cacheScope }).toEqual({ uri, scope: 'private' });
      }
      expect((await post('resources/read', { uri: 'file:///open.txt' })).result!.cacheScope).toBe('public');
    });
  });
});
