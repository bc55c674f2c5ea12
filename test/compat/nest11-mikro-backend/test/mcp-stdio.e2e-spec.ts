// The same AppModule and main.ts set-up over stdio, as a desktop client launches it (dist/stdio.js), with a
// service user's token in NOTES_TOKEN: MikroORM's and nestjs-cls's contexts, the global ValidationPipe, and a
// route tool behind the app's JWT and roles guards.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { INestApplication } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { json, login, startBackend } from './backend';

describe('nestjs-mcp over stdio in the MikroORM backend', () => {
  let app: INestApplication;

  beforeAll(async () => {
    execFileSync(process.execPath, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
      stdio: 'inherit',
    });
    app = await startBackend();
  }, 120_000);
  afterAll(() => app?.close());

  async function connect(token?: string): Promise<Client> {
    const client = new Client({ name: 'compat-stdio', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join('dist', 'stdio.js')],
        env: { ...(process.env as Record<string, string>), ...(token ? { NOTES_TOKEN: token } : {}) },
        stderr: 'inherit',
      }),
    );
    return client;
  }

  it('runs tools inside the request contexts and behind the pipes HTTP has, and route tools with its token', async () => {
    const client = await connect(await login(app, 'notes-bot', ['reader', 'writer']));
    try {
      const first = await client.callTool({ name: 'request_id', arguments: {} });
      const second = await client.callTool({ name: 'request_id', arguments: {} });
      expect(json(first as never).requestId).toEqual(expect.any(String));
      expect(json(second as never).requestId).not.toBe(json(first as never).requestId);

      const added = await client.callTool({ name: 'add_note', arguments: { text: 'over stdio' } });
      expect(added.isError).toBeFalsy();
      expect(json(added as never)).toMatchObject({ text: 'over stdio', author: 'stdio' });

      const extra = await client.callTool({ name: 'add_note', arguments: { text: 'x', extra: 1 } });
      expect(extra).toMatchObject({ isError: true, content: [{ text: 'Error: property extra should not exist' }] });

      const listed = await client.callTool({ name: 'list_notes', arguments: {} });
      expect(listed.isError).toBeFalsy();
      expect(json(listed as never)).toEqual({ notes: [] });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("is refused by the app's guards without a token, and by the RolesGuard with a token lacking the role", async () => {
    const anonymous = await connect();
    try {
      const res = await anonymous.callTool({ name: 'list_notes', arguments: {} });
      expect(res).toMatchObject({ isError: true, content: [{ text: 'Error: Unauthorized' }] });
    } finally {
      await anonymous.close();
    }
    const outsider = await connect(await login(app, 'eve', []));
    try {
      const res = await outsider.callTool({ name: 'list_notes', arguments: {} });
      expect(res).toMatchObject({ isError: true, content: [{ text: 'Error: Forbidden resource' }] });
    } finally {
      await outsider.close();
    }
  }, 60_000);
});
