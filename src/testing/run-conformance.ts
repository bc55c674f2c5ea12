import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpConfigurationError } from '../server/errors/configuration-error.js';
import { NO_SCENARIOS, UNKNOWN_ERA } from './testing-messages.js';
import { findReferee, runScenario, type ConformanceCheck, type Referee } from './conformance-referee.js';
import { closeListener, loopbackOrigin } from './loopback.js';

export type { ConformanceCheck, ConformanceStatus } from './conformance-referee.js';

/** The protocol revision the referee speaks: 2026-07-28 (per-request envelope) or 2025-11-25 (initialize first). */
export type ConformanceEra = '2026-07-28' | '2025-11-25';

/**
 * The server scenarios of each revision's requirement set that any app can pass. The others call the tools,
 * prompts and resources of the referee's own reference server by name (`test_simple_text`, `test://static-text`,
 * `test_missing_capability`), need every capability at once (`caching`), or, at 2025-11-25, a 2025-era session
 * (`server-sse-multiple-streams`): they are for the library's own fixture, and `scenarios` still picks any of them.
 */
const APP_SCENARIOS: Record<ConformanceEra, readonly string[]> = {
  '2026-07-28': [
    'tools-list',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
    'http-header-validation',
    'input-required-result-unsupported-methods',
  ],
  '2025-11-25': ['server-initialize', 'ping', 'logging-set-level', 'tools-list', 'dns-rebinding-protection'],
};

export interface RunConformanceOptions {
  /** Scenario names of the referee (`npx conformance list --server`). Default: those any app can pass at `era`. */
  scenarios?: readonly string[];
  /** Default `'2026-07-28'`. */
  era?: ConformanceEra;
  /** The MCP endpoint path, with any global prefix. Default `'/mcp'`. */
  path?: string;
  /** The referee's package folder or CLI file, when it is not installed in the project at `process.cwd()`. */
  referee?: string;
  /** A Node 22+ binary to run the referee with, when the tests run on an older Node. Default: this process's. */
  node?: string;
}

/** One scenario: `passed` when the referee ran checks and every one is SUCCESS or INFO. */
export interface ConformanceResult {
  scenario: string;
  passed: boolean;
  checks: ConformanceCheck[];
}

/** An app module (a class or a dynamic module), or an app already created and initialised. */
export type ConformanceTarget = Type<unknown> | DynamicModule | INestApplication;

/**
 * Runs the official MCP conformance referee's server scenarios against an app and returns one result per
 * scenario. A module is created (with Nest's default HTTP adapter) and listened on a free 127.0.0.1 port; an
 * app that is not listening is listened on one. What is started here is closed here; an app passed in stays open.
 */
export async function runConformance(
  target: ConformanceTarget,
  options: RunConformanceOptions = {},
): Promise<ConformanceResult[]> {
  const era = options.era ?? '2026-07-28';
  if (!(era in APP_SCENARIOS)) throw new McpConfigurationError(UNKNOWN_ERA(era, Object.keys(APP_SCENARIOS)));
  const scenarios = options.scenarios ?? APP_SCENARIOS[era];
  if (scenarios.length === 0) throw new McpConfigurationError(NO_SCENARIOS);
  // Before anything starts: a missing referee or an old Node is the likeliest failure, and it should be the only one.
  const referee = findReferee(options.referee, options.node);
  const created = isApp(target) ? undefined : await NestFactory.create(target, { logger: ['error'] });
  try {
    if (created) await created.listen(0, '127.0.0.1');
    const { origin, started } = await loopbackOrigin(created ?? (target as INestApplication));
    try {
      return await runScenarios(referee, `${origin}${options.path ?? '/mcp'}`, scenarios, era);
    } finally {
      await closeListener(started);
    }
  } finally {
    await created?.close();
  }
}

/** Each scenario in turn (they share the one app), each into a folder of its own under one removed at the end. */
async function runScenarios(
  referee: Referee,
  url: string,
  scenarios: readonly string[],
  era: ConformanceEra,
): Promise<ConformanceResult[]> {
  const outRoot = await mkdtemp(join(tmpdir(), 'nestjs-mcp-conformance-'));
  try {
    const results: ConformanceResult[] = [];
    for (const [index, scenario] of scenarios.entries()) {
      const checks = await runScenario(referee, { url, scenario, era, outDir: join(outRoot, String(index)) });
      const passed = checks.length > 0 && checks.every((c) => c.status === 'SUCCESS' || c.status === 'INFO');
      results.push({ scenario, passed, checks });
    }
    return results;
  } finally {
    await rm(outRoot, { recursive: true, force: true });
  }
}

function isApp(target: ConformanceTarget): target is INestApplication {
  return typeof (target as Partial<INestApplication>).getHttpServer === 'function';
}
