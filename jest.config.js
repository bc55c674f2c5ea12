import { availableParallelism } from 'node:os';

/**
 * Three tiers, one jest project each, chosen by directory (CONTRIBUTING.md, Tests):
 * - `unit`: test/unit, no socket, no process;
 * - `e2e`: test/e2e and test/security, supertest and real HTTP on the in-process Nest app, the machine's Redis;
 * - `slow`: test/slow and test/clients, real third-party clients, child processes that need a build, package
 *   tarballs, `nest build`, Chromium, Redis Cluster, fault and load tests.
 * `npm test` runs all three; `npm run test:unit|test:e2e|test:slow` one. `MCP_TEST_SET=matrix` (`npm run
 * test:matrix`) keeps the unit tier and the files of MATRIX: what CI runs again on each other Node version.
 */

/**
 * The files that exercise what differs between Node versions: the HTTP stack and sockets on both adapters, streams
 * and SSE, timers and abort signals, Web Crypto and `jose`, child processes and pipes, the Redis client. A file
 * belongs here when a Node upgrade could break it while the unit tier still passes.
 */
const MATRIX = [
  'test/e2e/adapters.e2e-spec.ts',
  'test/e2e/http-ladder.e2e-spec.ts',
  'test/e2e/smoke.e2e-spec.ts',
  'test/e2e/surface-streaming.e2e-spec.ts',
  'test/e2e/surface-listen.e2e-spec.ts',
  'test/e2e/legacy-sessions.e2e-spec.ts',
  'test/e2e/auth-jwt.e2e-spec.ts',
  'test/e2e/input-required.e2e-spec.ts',
  'test/e2e/tasks.e2e-spec.ts',
  'test/e2e/redis-module.e2e-spec.ts',
  'test/security/oversized-body.spec.ts',
  'test/slow/stdio-process.e2e-spec.ts',
];

const TIERS = {
  unit: ['<rootDir>/test/unit/**/*.spec.ts'],
  e2e: ['<rootDir>/test/e2e/**/*.e2e-spec.ts', '<rootDir>/test/security/**/*.spec.ts'],
  slow: ['<rootDir>/test/slow/**/*.e2e-spec.ts', '<rootDir>/test/clients/**/*.e2e-spec.ts'],
};

const matrixOnly = process.env.MCP_TEST_SET === 'matrix';

/** Jest 30 in ESM mode: the only way it loads the ESM-only Nest 12 on Node 20 (see README, Development). */
const project = (displayName, testMatch) => ({
  displayName,
  roots: ['<rootDir>/test'],
  testMatch,
  preset: 'ts-jest/presets/default-esm',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
});

export default {
  projects: matrixOnly
    ? [
        project('unit', TIERS.unit),
        project(
          'matrix',
          MATRIX.map((path) => `<rootDir>/${path}`),
        ),
      ]
    : Object.entries(TIERS).map(([name, testMatch]) => project(name, testMatch)),
  // Jest's default (one worker fewer than the cores) leaves a two-core machine one worker, while the suites
  // spend much of their time waiting on the servers, processes and sockets they start: over a whole run two
  // workers keep about one core busy, so a two-core machine runs three.
  maxWorkers: Math.max(3, availableParallelism()),
  // Jest's 5 s default is a timing threshold in disguise: with two workers on two cores, a case that starts a
  // Redis Cluster or an app beside another suite's child processes can pass 5 s without anything being wrong.
  // A case that hangs still fails; files that start slower things set more of their own.
  testTimeout: 30_000,
  testSequencer: '<rootDir>/test/support/tier-sequencer.cjs',
  reporters: ['default', ['<rootDir>/test/support/slowest-files-reporter.cjs', { count: 10 }]],
};
