import { execFileSync } from 'node:child_process';
import { builtinModules, createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { packedTarball, ROOT } from '../support/packed-package.js';

// Peers whose code is reached through a global they install rather than an import.
const USED_THROUGH_GLOBAL: Record<string, string> = { 'reflect-metadata': 'Reflect.getMetadata(' };

interface PackageJson {
  license: string;
  keywords?: string[];
  homepage?: string;
  repository?: { url: string };
  bugs?: { url: string };
  exports: Record<string, string | Record<string, Record<string, string>>>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

// The optional peers are loaded through the package's own helpers, named here with the plain loaders.
const LOADER =
  /\b(?:from\s*|(?:import|require|optionalImport|optionalRequire|requireFromLibrary)\)?\s*\(\s*)['"]([^'"./][^'"]*)['"]/g;

/** Bare specifiers a built file imports or loads, reduced to package names. */
function importedPackages(code: string): string[] {
  const specifiers = [...code.matchAll(LOADER)];
  return specifiers.map(([, specifier]) =>
    specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0],
  );
}

// What a user installs: `npm pack` of a checkout holding only the tracked files (no dist/, no build output).
describe('npm pack of a clean checkout', () => {
  let scratch: string;
  let unpacked: string;
  let files: string[];
  let manifest: PackageJson;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'nestjs-mcp-pack-'));
    const tarball = packedTarball(scratch);
    expect(basename(tarball)).toBe('nestjs-mcp-0.1.0.tgz');
    unpacked = join(scratch, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
    files = filesUnder(join(unpacked, 'package')).sort();
    manifest = JSON.parse(readFileSync(join(unpacked, 'package/package.json'), 'utf8')) as PackageJson;
    // Scripts run from inside the package, so `nestjs-mcp` resolves to the unpacked tarball through its exports map.
    symlinkSync(join(ROOT, 'node_modules'), join(unpacked, 'package', 'node_modules'), 'dir');
  }, 600_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('holds the built package (every file the exports map names), LICENSE, README and package.json only', () => {
    const named = Object.values(manifest.exports).flatMap((entry) =>
      typeof entry === 'string' ? [entry] : Object.values(entry).flatMap((condition) => Object.values(condition)),
    );
    expect(named.length).toBeGreaterThan(20);
    for (const path of named) expect(files).toContain(path.replace(/^\.\//, ''));
    expect(files).toContain('dist/cjs/package.json');
    expect(files.filter((path) => !path.startsWith('dist/'))).toEqual(['LICENSE', 'README.md', 'package.json']);
  });

  it('ships the playground page and its view bridge where both builds look for them, with no network address in it', () => {
    expect(files).toEqual(expect.arrayContaining(['dist/playground/index.html', 'dist/playground/bridge.js']));
    for (const build of ['esm', 'cjs']) {
      const locator = join(unpacked, 'package', 'dist', build, 'nest/playground/playground-assets.cjs');
      const { readPlaygroundPage } = createRequire(import.meta.url)(locator) as {
        readPlaygroundPage(): { html: string; bridge: string };
      };
      const { html, bridge } = readPlaygroundPage();
      expect(html).toContain('<div id="app"></div>');
      // Inlined: no script, style or font is fetched from anywhere; the page loads its view bridge from beside it.
      expect(html).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*\shref=/);
      expect(bridge).toContain('__nestjsMcpViewBridge');
    }
  });

  it('ships the MIT licence it declares, and says where the project lives', () => {
    expect(manifest.license).toBe('MIT');
    expect(readFileSync(join(unpacked, 'package/LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) /);
    expect(manifest.repository?.url).toMatch(/^git\+https:\/\/github\.com\/.+\.git$/);
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs?.url).toMatch(/^https:\/\/.+\/issues$/);
    expect(manifest.keywords).toEqual(expect.arrayContaining(['nestjs', 'mcp', 'model-context-protocol']));
  });

  it('ships no source map without its sources', () => {
    for (const path of files.filter((file) => file.endsWith('.map'))) {
      const map = JSON.parse(readFileSync(join(unpacked, 'package', path), 'utf8')) as {
        sources: string[];
        sourcesContent?: string[];
      };
      expect({ path, sourcesContent: map.sourcesContent?.length ?? 0 }).toEqual({
        path,
        sourcesContent: map.sources.length,
      });
    }
  });

  it('resolves every relative import and library require of the ESM build to a file it ships', () => {
    const esm = files.filter((path) => path.startsWith('dist/esm/') && path.endsWith('.js'));
    const imported = /\b(?:from\s*|import\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;
    // requireFromLibrary resolves from where library-require.cjs sits.
    const required = /\brequireFromLibrary\d*\(\s*["'](\.{1,2}\/[^"']+)["']/g;
    const targets = esm.flatMap((path) => {
      const code = readFileSync(join(unpacked, 'package', path), 'utf8');
      return [
        ...[...code.matchAll(imported)].map(([, specifier]) => join(dirname(path), specifier)),
        ...[...code.matchAll(required)].map(([, specifier]) => join('dist/esm/server/util', specifier)),
      ];
    });
    expect(esm.length).toBeGreaterThan(4);
    expect(targets.some((target) => target.endsWith('.cjs'))).toBe(true);
    expect(targets.filter((target) => !files.includes(target))).toEqual([]);
  });

  it('loads each ESM entry point as one module graph: a class is the same whichever entry point gave it', () => {
    const script = `
      import 'reflect-metadata';
      const root = await import('nestjs-mcp');
      const core = await import('nestjs-mcp/core');
      await Promise.all(['testing', 'redis'].map((entry) => import('nestjs-mcp/' + entry)));
      const kernel = new core.McpKernel({ name: 'packed', version: '1.0.0' });
      // A $ref needs ajv, which the bundle loads through the hand-written CommonJS helper beside it.
      kernel.registerTool('add', 'Adds', {
        type: 'object',
        $defs: { n: { type: 'number' } },
        properties: { a: { $ref: '#/$defs/n' }, b: { $ref: '#/$defs/n' } },
        required: ['a', 'b'],
      }, ({ a, b }) => String(a + b));
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const call = (args) => kernel.handleRequest({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: args, _meta: meta } });
      const good = await call({ a: 2, b: 3 });
      const bad = await call({ a: 'two', b: 3 });
      console.log(JSON.stringify({
        sameClass: root.McpError === core.McpError,
        text: good.result.content[0].text,
        rejected: { isError: bad.result.isError, text: bad.result.content[0].text },
      }));
    `;
    expect(runInPackage(unpacked, script)).toEqual({
      sameClass: true,
      text: '5',
      rejected: { isError: true, text: expect.stringMatching(/number/) },
    });
  });

  // The ESM build is bundled without esbuild's `keepNames` (which costs every closure a call per request), so a
  // class whose own name esbuild changed would show that name where Nest and Node print class names.
  it('keeps the class names Nest and Node print: exported classes, the modules and providers Nest logs, an inspected error', () => {
    const script = `
      import 'reflect-metadata';
      import { inspect } from 'node:util';
      import { Module } from '@nestjs/common';
      import { ModulesContainer, NestFactory } from '@nestjs/core';
      const renamed = [];
      for (const entry of ['', '/core', '/testing', '/redis', '/bullmq', '/plugin']) {
        for (const [key, value] of Object.entries(await import('nestjs-mcp' + entry))) {
          const isClass = typeof value === 'function' && /^class\\b/.test(Function.prototype.toString.call(value));
          if (isClass && value.name !== key) renamed.push(entry + ' ' + key + ': ' + value.name);
        }
      }
      const { McpError, McpModule } = await import('nestjs-mcp');
      class AppModule {}
      Module({ imports: [McpModule.forRoot({ name: 'packed', version: '1.0.0' })] })(AppModule);
      const logs = [];
      const logger = { log: (message, context) => logs.push(context + ': ' + message), error() {}, warn() {} };
      const app = await NestFactory.create(AppModule, { logger });
      await app.init();
      const nest = [];
      for (const module of app.get(ModulesContainer).values()) {
        nest.push(module.metatype.name);
        for (const wrapper of module.providers.values()) if (typeof wrapper.metatype === 'function') nest.push(wrapper.name);
      }
      await app.close();
      console.log(JSON.stringify({
        renamed,
        nest,
        logs,
        error: inspect(McpError.invalidParams('bad value')).split('\\n')[0],
      }));
    `;
    const seen = runInPackage(unpacked, script) as { renamed: string[]; nest: string[]; logs: string[]; error: string };
    expect(seen.renamed).toEqual([]);
    expect(seen.nest).toEqual(
      expect.arrayContaining(['McpModule', 'McpExplorer', 'McpHandlerFactory', 'McpMetadataAccessor', 'MCPServer']),
    );
    // What esbuild names a class it renamed: a digit after the source's name, or an underscore before it.
    expect(seen.nest.filter((name) => /^_|[a-z]\d+$/.test(name))).toEqual([]);
    expect(seen.logs).toContain('InstanceLoader: McpModule dependencies initialized');
    expect(seen.error).toBe('McpError: bad value');
  });

  it('needs every peer it declares, and imports nothing it does not declare', () => {
    const code = files
      .filter((path) => /\.(c?js)$/.test(path))
      .map((path) => readFileSync(join(unpacked, 'package', path), 'utf8'));
    const imported = new Set(code.flatMap(importedPackages));
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
    expect([...imported].filter((name) => !builtins.has(name) && !declared.has(name))).toEqual([]);
    const unused = Object.keys(manifest.peerDependencies).filter((peer) =>
      USED_THROUGH_GLOBAL[peer] ? !code.some((text) => text.includes(USED_THROUGH_GLOBAL[peer])) : !imported.has(peer),
    );
    expect(unused).toEqual([]);
  });
});

/** Runs an ESM script from inside the unpacked package and parses the JSON it prints last. */
function runInPackage(unpacked: string, script: string): unknown {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: join(unpacked, 'package'),
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}
