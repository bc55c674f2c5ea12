import { jest } from '@jest/globals';
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ForbiddenException, Injectable, Module, type CanActivate, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { McpModule, Tool } from '../../src/index.js';
import { runConformance, type ConformanceResult } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';

/**
 * `runConformance` on a small app of a user's own, with the referee `scripts/conformance.mjs --install-only`
 * installs apart in .conformance/ (with the Node 22 it needs), passed through the `referee` and `node` options.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const prefix = join(root, '.conformance', 'node_modules');
const referee = join(prefix, '@modelcontextprotocol', 'conformance');
const node = join(prefix, 'node', 'bin', 'node');
const pinned = /const REFEREE_VERSION = '([^']+)'/.exec(
  readFileSync(join(root, 'scripts', 'conformance.mjs'), 'utf8'),
)![1];

let constructed = 0;

@Injectable()
class OrderTools {
  constructor() {
    constructed++;
  }

  @Tool({ name: 'order_status', description: 'The status of an order' })
  status(): string {
    return 'shipped';
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'orders', version: '1.0.0' })], providers: [OrderTools] })
class AppModule {}

/** A guard that stops every request: what a misconfigured auth guard does to an MCP endpoint. */
@Injectable()
class DenyAll implements CanActivate {
  canActivate(): boolean {
    throw new ForbiddenException('no');
  }
}

@Module({ imports: [AppModule], providers: [{ provide: APP_GUARD, useClass: DenyAll }] })
class GuardedAppModule {}

const byName = (results: ConformanceResult[]) => Object.fromEntries(results.map((r) => [r.scenario, r]));

/** The server scenarios an era's frozen requirement set runs (required, or reported unscored), as the pinned referee lists them. */
function requirementSet(era: string): Set<string> {
  const args = [join(referee, 'dist', 'index.js'), 'list', '--server', '--requirements', era];
  const listed = execFileSync(node, args, { encoding: 'utf8' });
  const server = listed.slice(listed.indexOf('Server scenarios'), listed.indexOf('Client scenarios'));
  const required = [...server.matchAll(/^ {2}- (\S+)$/gm)].map((m) => m[1]);
  const pending = [...listed.matchAll(/^ {4}- (\S+) \[server\]$/gm)].map((m) => m[1]);
  return new Set([...required, ...pending]);
}

// Each scenario is a referee process of its own, five or more a case: on a loaded machine that is minutes.
jest.setTimeout(240_000);
describe('runConformance (nestjs-mcp/testing)', () => {
  beforeAll(() => {
    // Idempotent: a no-op when CI's referee step installed it already.
    execFileSync(process.execPath, [join(root, 'scripts', 'conformance.mjs'), '--install-only'], {
      cwd: root,
      stdio: 'inherit',
    });
  }, 300_000);

  it('runs the 2026-07-28 scenarios any app can pass on an AppModule, and every one passes', async () => {
    const results = await runConformance(AppModule, { referee, node });
    expect(results.map((r) => r.scenario)).toEqual([
      'tools-list',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
      'http-header-validation',
      'input-required-result-unsupported-methods',
    ]);
    for (const result of results) {
      expect(result.checks.length).toBeGreaterThan(0);
      expect({ scenario: result.scenario, passed: result.passed }).toEqual({ scenario: result.scenario, passed: true });
    }
    const set = requirementSet('2026-07-28');
    expect(results.filter((r) => !set.has(r.scenario))).toEqual([]);
    expect(byName(results)['tools-list'].checks).toContainEqual(
      expect.objectContaining({ id: 'tools-list', status: 'SUCCESS' }),
    );
  });

  it('runs the 2025-11-25 scenarios on an initialised Fastify app through the referee CLI, and leaves the app open', async () => {
    const app: INestApplication = await createApp([AppModule], [], 'fastify');
    try {
      const results = await runConformance(app, {
        era: '2025-11-25',
        referee: join(referee, 'dist', 'index.js'),
        node,
      });
      expect(results.map((r) => [r.scenario, r.passed])).toEqual([
        ['server-initialize', true],
        ['ping', true],
        ['logging-set-level', true],
        ['tools-list', true],
        ['dns-rebinding-protection', true],
      ]);
      const set = requirementSet('2025-11-25');
      expect(results.filter((r) => !set.has(r.scenario))).toEqual([]);
      // The listener it started is closed; the app is the caller's to close.
      expect((app.getHttpServer() as { listening: boolean }).listening).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('shows a guard that breaks the endpoint as failed checks with the reason', async () => {
    const results = await runConformance(GuardedAppModule, {
      scenarios: ['tools-list', 'ping'],
      era: '2025-11-25',
      referee,
      node,
    });
    expect(results.map((r) => [r.scenario, r.passed])).toEqual([
      ['tools-list', false],
      ['ping', false],
    ]);
    const failed = results[0].checks.find((c) => c.status === 'FAILURE');
    expect(failed?.id).toBe('tools-list');
    expect(failed?.message).toMatch(/403|Forbidden/);
  });

  it('reaches the endpoint under a global prefix through the path option', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false }).setGlobalPrefix('api');
    await app.init();
    try {
      const scenarios = ['tools-list'];
      const [atPrefix] = await runConformance(app, { path: '/api/mcp', scenarios, referee, node });
      expect(atPrefix.passed).toBe(true);
      const [atDefault] = await runConformance(app, { scenarios, referee, node });
      expect(atDefault.passed).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('refuses a scenario the referee does not run at the era, naming it', async () => {
    await expect(runConformance(AppModule, { scenarios: ['ping'], referee, node })).rejects.toThrow(
      /ran no checks for scenario 'ping' at 2026-07-28: .*not applicable/s,
    );
  });

  it('without the referee in the project, says exactly what to install, and starts nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'nestjs-mcp-no-referee-'));
    const cwd = process.cwd();
    const before = constructed;
    process.chdir(empty);
    try {
      await expect(runConformance(AppModule, { node })).rejects.toThrow(
        `npm install --save-dev @modelcontextprotocol/conformance@${pinned}`,
      );
    } finally {
      process.chdir(cwd);
      rmSync(empty, { recursive: true, force: true });
    }
    expect(constructed).toBe(before);
  });

  it('names the Node version the referee needs when the node option is older', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nestjs-mcp-old-node-'));
    const oldNode = join(dir, 'node');
    writeFileSync(oldNode, '#!/bin/sh\necho v20.11.1\n');
    chmodSync(oldNode, 0o755);
    try {
      await expect(runConformance(AppModule, { referee, node: oldNode })).rejects.toThrow(
        `the node option ${oldNode} is Node v20.11.1; the conformance referee needs Node 22 or later`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
