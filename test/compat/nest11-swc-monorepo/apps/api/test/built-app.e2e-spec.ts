import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createMcpTestClient } from 'nestjs-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUOTE, TIMEOUT } from './orders';

// What `nest build` made with the SWC builder (npm run test:e2e builds first): the app's and the library's
// output, and the metadata file its type check wrote, run by Node as `npm run start:prod` runs it.
const MAIN = join(process.cwd(), 'dist/apps/api/apps/api/src/main.js');

describe('the SWC build of the monorepo', () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    child = spawn(process.execPath, [MAIN], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const listening = /Listening on (http:\/\/\S+)/.exec(output);
        if (listening) resolve(listening[1]);
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`${MAIN} exited with ${code}:\n${output}`)));
    });
  }, TIMEOUT);
  afterAll(async () => {
    if (child?.exitCode !== null) return;
    child.kill();
    await once(child, 'exit');
  });

  it('publishes the schemas of the library’s tool and answers a call', async () => {
    const mcp = createMcpTestClient(url);
    const tools = await mcp.listTools();
    expect(tools.result?.tools).toEqual([QUOTE]);
    const quote = await mcp.callTool('quote', { sku: 'mug-02', quantity: 3 });
    expect(quote.result?.structuredContent).toEqual({ total: 3600, delivery: 'standard' });
  });
});
