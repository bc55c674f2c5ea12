import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { AppModule } from '../../examples/basic/app.module.js';
import { createApp } from '../support/create-app.js';

/** The README's quick-start curl block: the shared H and META lines, then one curl command per paragraph. */
function readmeCurlCommands(): { prelude: string; commands: string[] } {
  const readme = readFileSync('README.md', 'utf8');
  const block = [...readme.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('curl -s'));
  if (!block) throw new Error('README has no curl block');
  const [prelude, ...commands] = block.trim().split(/\n\n/);
  return { prelude, commands };
}

describe('README curl examples, run with curl against the example app', () => {
  let app: INestApplication;
  let url: string;
  const { prelude, commands } = readmeCurlCommands();

  beforeAll(async () => {
    app = await createApp([AppModule]);
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
  });
  afterAll(() => app.close());

  // Asynchronously: the app answering curl runs in this process.
  const run = async (command: string) => {
    const script = `${prelude}\n${command.replaceAll('http://127.0.0.1:3000/mcp', url)}`;
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], { encoding: 'utf8', timeout: 30_000 });
    expect(stderr).toBe('');
    return JSON.parse(stdout);
  };

  it('has the five commands: discover, tools/list, tools/call, resources/read, prompts/get', () => {
    expect(commands.map((c) => /mcp-method: ([\w/]+)/.exec(c)?.[1])).toEqual([
      'server/discover',
      'tools/list',
      'tools/call',
      'resources/read',
      'prompts/get',
    ]);
  });

  it('each answers with a result, and tools/call with the text the README prints', async () => {
    const [discover, list, call, read, prompt] = await Promise.all(commands.map(run));
    expect(discover.result.supportedVersions).toEqual(['2026-07-28']);
    expect(list.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'get_weather',
      'add',
      'countdown',
      'get_forecast',
    ]);
    const printed = /The `tools\/call` answers\n`(.*)`\./.exec(readFileSync('README.md', 'utf8'))?.[1];
    expect(call).toEqual(JSON.parse(printed!));
    expect(read.result.contents).toEqual([
      { uri: 'weather://forecast/Oslo', mimeType: 'application/json', text: expect.any(String) },
    ]);
    expect(JSON.parse(read.result.contents[0].text)).toEqual({
      city: 'Oslo',
      temperatureC: expect.any(Number),
      conditions: expect.any(String),
    });
    expect(prompt.result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write a two-line weather report for Oslo.' } },
    ]);
  });

  it('without Mcp-Name, resources/read is -32020 naming the header and the value', async () => {
    const res = await run(commands[3].replace(" -H 'mcp-name: weather://forecast/Oslo'", ''));
    expect(res.error).toEqual({
      code: -32020,
      message: 'Header mismatch: Mcp-Name must be "weather://forecast/Oslo" (params.uri), got none',
    });
  });
});
