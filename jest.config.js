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
};
