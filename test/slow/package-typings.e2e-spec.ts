import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packedTarball, ROOT } from '../support/packed-package.js';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

// A consumer of every entry point, as a Nest backend writes it; `@Tool({ singleUseState: true })` included.
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

// What a Nest backend's tsconfig says: Nest 10 and earlier generate "module": "commonjs" (node10 resolution).
// Under node16 the consumer is an ES module (.mts): the Nest 12 installed here is ESM-only, which node16 does not
// let a CommonJS file import (nodenext does).
const SETTINGS: Record<string, { file: string; options: Record<string, unknown> }> = {
  'commonjs (node10 resolution)': { file: 'main.ts', options: { module: 'commonjs', ignoreDeprecations: '6.0' } },
  node16: { file: 'main.mts', options: { module: 'node16' } },
  nodenext: { file: 'main.ts', options: { module: 'nodenext' } },
  bundler: { file: 'main.ts', options: { module: 'esnext', moduleResolution: 'bundler' } },
};

// The package as npm installs it: `npm pack` of the tracked files, built once, unpacked into a consumer's
// node_modules beside the machine's other packages.
describe('the packed package’s typings under each tsconfig module setting', () => {
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'nestjs-mcp-typings-'));
    const tarball = packedTarball(scratch);
    const modules = join(scratch, 'consumer', 'node_modules');
    mkdirSync(join(modules, 'nestjs-mcp'), { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '--strip-components=1', '-C', join(modules, 'nestjs-mcp')]);
    for (const name of readdirSync(join(ROOT, 'node_modules'))) {
      if (name !== 'nestjs-mcp' && !name.startsWith('.'))
        symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
    }
    writeFileSync(join(scratch, 'consumer', 'main.ts'), CONSUMER);
    writeFileSync(join(scratch, 'consumer', 'main.mts'), CONSUMER);
  }, 300_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.each(Object.entries(SETTINGS))('type-checks a consumer of every entry point: %s', (_name, { file, options }) => {
    const consumer = join(scratch, 'consumer');
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
    let output = '';
    try {
      execFileSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: consumer, encoding: 'utf8' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    expect(output).toBe('');
  });
});
