import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { packedTarball } from '../support/packed-package.js';
import { nestCli } from '../clients/support/nest-cli.js';

const ROOT = process.cwd();
const JEST = resolve('node_modules/jest/bin/jest.js');
const FIXTURE = resolve('test/slow/plugin-app');

interface ToolsList {
  result: { tools: Array<{ name: string; description?: string; inputSchema: unknown; outputSchema?: unknown }> };
}

// A Nest app (nest-cli.json naming "nestjs-mcp/plugin", tools written as typed methods with JSDoc and no schema)
// built by the Nest CLI with tsc and with SWC, and tested by its own jest with ts-jest, against the packed
// package, resolved through its exports map as an installed package is.
describe('nestjs-mcp/plugin in a Nest CLI build', () => {
  let app: string;
  let packScratch: string;
  let nest: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    nest = await nestCli();
    mkdirSync(join(ROOT, 'build'), { recursive: true });
    app = mkdtempSync(join(ROOT, 'build', 'plugin-e2e-'));
    cpSync(FIXTURE, app, { recursive: true });
    // The packed package, unpacked where an install puts it; its dependencies resolve from the checkout's
    // node_modules, up the tree. Packed apart (or by CI), never by rebuilding the checkout's dist/, which tests
    // running beside this one read.
    // Outside the app, whose own jest run would otherwise find the packed checkout's tests.
    packScratch = mkdtempSync(join(ROOT, 'build', 'plugin-pack-'));
    const tarball = packedTarball(packScratch);
    mkdirSync(join(app, 'node_modules'));
    execFileSync('tar', ['-xzf', tarball, '-C', join(app, 'node_modules')]);
    renameSync(join(app, 'node_modules', 'package'), join(app, 'node_modules', 'nestjs-mcp'));
  }, 600_000);

  afterAll(() => {
    for (const child of children) child.kill();
    rmSync(app, { recursive: true, force: true });
    rmSync(packScratch, { recursive: true, force: true });
  });

  /** `nest build` with these extra arguments; the output is moved to `dist-<label>`. */
  function nestBuild(label: string, ...args: string[]): string {
    const build = spawnSync(process.execPath, [nest, 'build', ...args], {
      cwd: app,
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (build.status !== 0) throw new Error(`nest build ${args.join(' ')} failed:\n${build.stdout}${build.stderr}`);
    const out = join(app, `dist-${label}`);
    rmSync(out, { recursive: true, force: true });
    renameSync(join(app, 'dist'), out);
    // The SWC builder keeps the source folder in its output when the tsconfig sets `rootDir`.
    return existsSync(join(out, 'src', 'main.js')) ? join(out, 'src') : out;
  }

  async function start(dist: string): Promise<string> {
    const child = spawn(process.execPath, [join(dist, 'main.js')], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const port = await new Promise<string>((done, fail) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const match = /listening (\d+)/.exec(chunk.toString());
        if (match) done(match[1]);
      });
      // 'close', not 'exit': by then stderr has been read to its end.
      child.once('close', (code) => fail(new Error(`the app exited with ${code}: ${stderr}`)));
    });
    return `http://127.0.0.1:${port}/mcp`;
  }

  async function post(url: string, method: string, params: Record<string, unknown> = {}) {
    const body = mcpMessage(method, params);
    const res = await fetch(url, { method: 'POST', headers: mcpHeaders(body), body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it('serves the same derived tools/list built with tsc and with SWC, and refuses a wrong argument type naming it', async () => {
    const tsc = nestBuild('tsc');
    expect(readFileSync(join(tsc, 'weather.tools.js'), 'utf8')).toContain('_MCP_METADATA_FACTORY');

    // main.ts imports ./metadata as docs/schemas.md shows, over the placeholder the fixture commits: without it
    // the first build would fail its type check (TS2307) before the CLI wrote the file.
    const placeholder = readFileSync(join(app, 'src', 'metadata.ts'), 'utf8');
    const swc = nestBuild('swc', '-b', 'swc', '--type-check');
    // SWC compiles without a type checker: the schemas come from the metadata file the CLI generated.
    expect(readFileSync(join(swc, 'weather.tools.js'), 'utf8')).not.toContain('_MCP_METADATA_FACTORY');
    expect(readFileSync(join(swc, 'metadata.js'), 'utf8')).toContain('WeatherTools');
    writeFileSync(join(app, 'src', 'metadata.ts'), placeholder);

    const [tscUrl, swcUrl] = await Promise.all([start(tsc), start(swc)]);
    const fromTsc = (await post(tscUrl, 'tools/list')).body as ToolsList;
    const fromSwc = (await post(swcUrl, 'tools/list')).body as ToolsList;
    expect(fromSwc.result.tools).toEqual(fromTsc.result.tools);

    const byName = Object.fromEntries(fromTsc.result.tools.map((tool) => [tool.name, tool]));
    expect(byName.forecast).toEqual({
      name: 'forecast',
      description: 'The forecast for a city.',
      inputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'The city to look up' },
          days: { type: 'number', description: 'How many days ahead, from today' },
          from: { type: 'string', format: 'date-time', description: 'Where the days start' },
          units: { type: 'string', enum: ['C', 'F'], description: 'the temperature scale', default: 'C' },
        },
        required: ['city'],
      },
      outputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          temperature: { type: 'number' },
          conditions: { type: 'string', enum: ['sunny', 'windy', 'rainy'] },
        },
        required: ['city', 'temperature', 'conditions'],
      },
    });
    expect(byName.add).toEqual({
      name: 'add',
      description: 'Adds two numbers.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    });

    // The SWC build with the placeholder's output in place of the generated file (the metadata never loaded):
    // its plain tools would take no arguments, so it does not start, and says which line is missing.
    const forgot = join(app, 'dist-swc-forgot');
    cpSync(swc, forgot, { recursive: true });
    cpSync(join(tsc, 'metadata.js'), join(forgot, 'metadata.js'));
    await expect(start(forgot)).rejects.toThrow(
      /WeatherTools\.forecast, WeatherTools\.add take typed arguments but have no input schema[^]*await McpModule\.loadPluginMetadata\(metadata\);/,
    );

    for (const url of [tscUrl, swcUrl]) {
      // The derived schema is checked like a written one: a wrong argument is a tool error naming it (the
      // 2025-11-25 revision made argument errors tool results the model can correct, not protocol errors).
      const wrong = await post(url, 'tools/call', { name: 'add', arguments: { a: 'one', b: 2 } });
      expect(wrong.body.result).toEqual(
        expect.objectContaining({
          isError: true,
          content: [{ type: 'text', text: 'Invalid argument "a": must be number (type)' }],
        }),
      );
      const right = await post(url, 'tools/call', {
        name: 'forecast',
        arguments: { city: 'Oslo', units: 'F', from: '2026-01-01T00:00:00Z' },
      });
      expect(right.body.result.structuredContent).toEqual({
        city: 'Oslo',
        temperature: 55,
        conditions: 'windy',
      });
    }
  }, 600_000);

  it("runs in jest as ts-jest's AST transformer, and refuses a transpile-only ts-jest", () => {
    // The fixture's jest.config.json names `nestjs-mcp/plugin` in `astTransformers`. ts-jest resolves it from its
    // own folder, which here is the repository's: NODE_PATH adds the app's node_modules, as an install would.
    // Jest runs as ESM because the repository's Nest 12 is ESM only.
    const jest = (...args: string[]) =>
      spawnSync(process.execPath, ['--experimental-vm-modules', JEST, '--ci', '--no-cache', ...args], {
        cwd: app,
        env: { ...process.env, NODE_PATH: join(app, 'node_modules') },
        encoding: 'utf8',
        timeout: 300_000,
      });
    const run = jest();
    expect(run.stderr).toMatch(/Tests: +1 passed, 1 total/);
    expect(run.status).toBe(0);

    // With `isolatedModules` ts-jest compiles each file alone, without the types the plugin reads.
    const config = JSON.parse(readFileSync(join(app, 'jest.config.json'), 'utf8'));
    config.transform['^.+\\.ts$'][1].tsconfig.isolatedModules = true;
    writeFileSync(join(app, 'jest.transpile-only.json'), JSON.stringify(config));
    const transpileOnly = jest('--config', 'jest.transpile-only.json');
    expect(transpileOnly.status).not.toBe(0);
    expect(transpileOnly.stderr).toContain('nestjs-mcp/plugin needs the type checker');
  }, 300_000);

  it('changes the schema on the next build when a parameter type changes, and fails the build on a function type', () => {
    const tools = join(app, 'src', 'weather.tools.ts');
    const source = readFileSync(tools, 'utf8');
    writeFileSync(tools, source.replace("@Args('b') b: number", "@Args('b') b: 2 | 3"));
    const rebuilt = nestBuild('tsc-changed');
    const output = readFileSync(join(rebuilt, 'weather.tools.js'), 'utf8');
    expect(output).toMatch(/"b": \{\s*"type": "integer",\s*"enum": \[2, 3\]/);

    writeFileSync(
      tools,
      source.replace(
        "@Args('b') b: number): number {\n    return a + b;",
        "@Args('b') b: () => number): number {\n    return a + b();",
      ),
    );
    const failed = spawnSync(process.execPath, [nest, 'build'], { cwd: app, encoding: 'utf8', timeout: 300_000 });
    expect(failed.status).not.toBe(0);
    expect(failed.stdout + failed.stderr).toContain(
      'nestjs-mcp/plugin: WeatherTools.add: argument "b" has type "() => number"',
    );
    const swcFailed = spawnSync(process.execPath, [nest, 'build', '-b', 'swc', '--type-check'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 300_000,
    });
    expect(swcFailed.status).not.toBe(0);
    expect(swcFailed.stdout + swcFailed.stderr).toContain(
      'nestjs-mcp/plugin: WeatherTools.add: argument "b" has type "() => number"',
    );
    writeFileSync(tools, source);
  }, 600_000);
});
