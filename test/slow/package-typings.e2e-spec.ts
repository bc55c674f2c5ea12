import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packedTarball, ROOT } from '../support/packed-package.js';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

// A consumer of the main entry points, as a Nest backend writes it; `@Tool({ singleUseState: true })` included.
const CONSUMER = `
import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { McpModule, Tool, type McpContext, type ToolOptions } from 'nestjs-mcp';
import { McpKernel } from 'nestjs-mcp/core';
import { createMcpTestClient } from 'nestjs-mcp/testing';
import { McpRedisModule } from 'nestjs-mcp/redis';

const options: ToolOptions = { description: 'Deletes a file', singleUseState: true };

@Injectable()
export class Files {
  @Tool(options)
  async delete_file(_args: unknown, _answers: unknown, ctx: McpContext): Promise<string> {
    return ctx.principal === undefined ? 'anonymous' : 'someone';
  }
}

export const used = [McpModule, McpKernel, createMcpTestClient, McpRedisModule];
`;

// "module": "commonjs" alone means node10 resolution before TypeScript 6 and bundler resolution from 6 on, which
// deprecates node10: named, so that the package is checked as the TypeScript 5 of a Nest 10 backend reads it.
const NODE10 = { module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0' };

// What a Nest backend's tsconfig says: Nest 10 and earlier generate "module": "commonjs" (node10 resolution).
// Under node16 the consumer is an ES module (.mts): the Nest 12 installed here is ESM-only, which node16 does not
// let a CommonJS file import (nodenext does).
const SETTINGS: Record<string, { file: string; options: Record<string, unknown> }> = {
  'commonjs (node10 resolution)': { file: 'main.ts', options: NODE10 },
  node16: { file: 'main.mts', options: { module: 'node16' } },
  nodenext: { file: 'main.ts', options: { module: 'nodenext' } },
  bundler: { file: 'main.ts', options: { module: 'esnext', moduleResolution: 'bundler' } },
};

// Each resolution mode with the module format its importer has there, and the `exports` condition whose
// declarations it must land on: node10 reads no `exports` map, so `types` and `typesVersions` must lead it to the
// CommonJS ones. The file extension sets the importer's format under node16 and nodenext.
const MODES: { mode: string; file: string; condition: 'require' | 'import'; options: Record<string, unknown> }[] = [
  {
    mode: 'node10',
    file: 'entries.ts',
    condition: 'require',
    options: NODE10,
  },
  { mode: 'node16, CommonJS importer', file: 'entries.cts', condition: 'require', options: { module: 'node16' } },
  { mode: 'node16, ESM importer', file: 'entries.mts', condition: 'import', options: { module: 'node16' } },
  { mode: 'nodenext, CommonJS importer', file: 'entries.cts', condition: 'require', options: { module: 'nodenext' } },
  { mode: 'nodenext, ESM importer', file: 'entries.mts', condition: 'import', options: { module: 'nodenext' } },
  {
    mode: 'bundler',
    file: 'entries.ts',
    condition: 'import',
    options: { module: 'esnext', moduleResolution: 'bundler' },
  },
];

// One tsc run per test, which reads the declarations of Nest, BullMQ and TypeScript itself: seconds on a busy machine.
const TSC_TIMEOUT = 120_000;

type Conditions = Partial<Record<'import' | 'require', { types?: string }>>;

/** `tsc --noEmit --listFiles` on one file: the compiler's errors, and the files its program read. */
function typeCheck(consumer: string, file: string, options: Record<string, unknown>) {
  const compilerOptions = {
    ...options,
    target: 'ES2022',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node'],
    noEmit: true,
  };
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [file] }));
  let output: string;
  try {
    output = execFileSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--listFiles', '--pretty', 'false'], {
      cwd: consumer,
      encoding: 'utf8',
    });
  } catch (error) {
    output = String((error as { stdout?: string }).stdout);
  }
  const lines = output.split('\n').filter(Boolean);
  return { errors: lines.filter((line) => / error TS\d+/.test(line)), files: new Set(lines) };
}

// The package as npm installs it: `npm pack` of the tracked files, built once, unpacked into a consumer's
// node_modules beside the machine's other packages.
describe('the packed package’s typings under each tsconfig module setting', () => {
  let scratch: string;
  let consumer: string;
  let installed: string;
  let entries: [specifier: string, conditions: Conditions][];

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'nestjs-mcp-typings-'));
    const tarball = packedTarball(scratch);
    consumer = join(scratch, 'consumer');
    installed = join(consumer, 'node_modules', 'nestjs-mcp');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '--strip-components=1', '-C', installed]);
    for (const name of readdirSync(join(ROOT, 'node_modules'))) {
      if (name !== 'nestjs-mcp' && !name.startsWith('.'))
        symlinkSync(join(ROOT, 'node_modules', name), join(consumer, 'node_modules', name), 'dir');
    }
    writeFileSync(join(consumer, 'main.ts'), CONSUMER);
    writeFileSync(join(consumer, 'main.mts'), CONSUMER);
    // Every entry point of the packed package's `exports` map, so that a new one without typings fails here.
    const { exports } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      exports: Record<string, Conditions | string>;
    };
    // An entry that is a bare path names no declarations for either condition, and fails below.
    entries = Object.entries(exports)
      .filter(([path]) => path !== './package.json')
      .map(([path, target]) => [join('nestjs-mcp', path), typeof target === 'object' ? target : {}]);
    const imports = entries.map(([specifier], i) => `import * as entry${i} from '${specifier}';`);
    const source = `${imports.join('\n')}\nexport const entries = [${entries.map((_, i) => `entry${i}`).join(', ')}];\n`;
    for (const file of new Set(MODES.map((mode) => mode.file))) writeFileSync(join(consumer, file), source);
  }, 300_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.each(Object.entries(SETTINGS))(
    'type-checks a Nest consumer of the entry points: %s',
    (_name, { file, options }) => {
      expect(typeCheck(consumer, file, options).errors).toEqual([]);
    },
    TSC_TIMEOUT,
  );

  it.each(MODES)(
    'resolves every entry point of exports to its declarations: $mode',
    ({ file, condition, options }) => {
      expect(entries.map(([specifier]) => specifier)).toEqual(
        expect.arrayContaining(['nestjs-mcp', 'nestjs-mcp/core']),
      );
      const { errors, files } = typeCheck(consumer, file, options);
      expect(errors).toEqual([]);
      const resolved = entries.map(([specifier, conditions]) => {
        const types = conditions[condition]?.types;
        const path = types === undefined ? undefined : join(installed, types);
        return { specifier, declarations: path !== undefined && files.has(path) ? types : `not read: ${types}` };
      });
      expect(resolved).toEqual(
        entries.map(([specifier, conditions]) => ({ specifier, declarations: conditions[condition]?.types })),
      );
    },
    TSC_TIMEOUT,
  );
});
