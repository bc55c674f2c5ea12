// The MCP endpoint over HTTP inside a backend with MikroORM's request context, nestjs-cls, media-type
// versioning, a strict global ValidationPipe and the app's own JWT and roles guards.
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { json, login, mcpClient, startBackend, TIMEOUT } from './backend';

describe('nestjs-mcp over HTTP in the MikroORM backend', () => {
  let app: INestApplication;
  let writer: string;

  beforeAll(async () => {
    app = await startBackend();
    writer = await login(app, 'ada', ['reader', 'writer']);
  }, TIMEOUT);
  afterAll(() => app?.close());

  it(
    "refuses an MCP request without a token through the app's own guard",
    async () => {
      const res = await mcpClient(app).callTool('request_id');
      expect(res.status).toBe(401);
    },
    TIMEOUT,
  );

  it(
    "saves a note with MikroORM's entity manager, inside nestjs-cls's request context",
    async () => {
      const res = await mcpClient(app, writer).callTool('add_note', { text: 'over http' });
      expect(res.result!.isError).toBeFalsy();
      const note = json(res.result);
      expect(note).toMatchObject({ text: 'over http', author: 'ada', requestId: expect.any(String) });
    },
    TIMEOUT,
  );

  it(
    "refuses a property the DTO does not declare, through the app's global ValidationPipe",
    async () => {
      const res = await mcpClient(app, writer).callTool('add_note', { text: 'x', extra: 1 });
      expect(res.result).toMatchObject({
        isError: true,
        content: [{ text: 'Error: property extra should not exist' }],
      });
    },
    TIMEOUT,
  );

  it(
    'serves a route tool under media-type versioning, passing and failing the RolesGuard as REST does',
    async () => {
      const listed = await mcpClient(app, writer).callTool('list_notes');
      expect(listed.result!.isError).toBeFalsy();
      expect(json(listed.result).notes.map((n: { text: string }) => n.text)).toEqual(['over http']);
      const outsider = await login(app, 'eve', []);
      const denied = await mcpClient(app, outsider).callTool('list_notes');
      expect(denied.result).toMatchObject({ isError: true, content: [{ text: 'Error: Forbidden resource' }] });
      await request(app.getHttpServer())
        .get('/api/notes')
        .set('authorization', `Bearer ${outsider}`)
        .set('accept', 'application/json;v=1')
        .expect(403);
    },
    TIMEOUT,
  );
});
