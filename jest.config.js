import { availableParallelism } from 'node:os';

/** Jest 30 in ESM mode: the only way it loads the ESM-only Nest 12 on Node 20 (see README, Development). */
export default {
  preset: 'ts-jest/presets/default-esm',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  // The compat apps run their own generated runners (test/compat/run.sh).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/compat/'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  // Jest's default (one worker fewer than the cores) leaves a two-core machine one worker, while the suites
  // spend much of their time waiting on the servers, processes and sockets they start: two run it in about
  // two thirds of the time.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // Jest's 5 s default is a timing threshold in disguise: with two workers on two cores, a case that starts a
  // Redis Cluster or an app beside another suite's child processes can pass 5 s without anything being wrong.
  // A case that hangs still fails; files that start slower things set more of their own.
  testTimeout: 30_000,
};
