import { EntityManager } from '@mikro-orm/postgresql';
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createMcpTestClient, McpTestClient } from 'nestjs-mcp/testing';
import request from 'supertest';
import { AppModule } from '../src/app.module';
import { configureApp } from '../src/configure-app';

export const MCP_PATH = '/api/mcp';
export const TIMEOUT = 30_000;

/** The app as main.ts runs it, on 127.0.0.1 and a free port, its notes table emptied. */
export async function startBackend(): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = configureApp(moduleRef.createNestApplication({ logger: false }));
  await app.listen(0, '127.0.0.1');
  await app.get(EntityManager).getConnection().execute('DELETE FROM compat_mikro_backend_notes');
  return app;
}

export async function login(app: INestApplication, username: string, roles: string[]): Promise<string> {
  const res = await request(app.getHttpServer())
    .post('/api/auth/login')
    .set('accept', 'application/json;v=1')
    .send({ username, roles })
    .expect(201);
  return res.body.access_token as string;
}

export function mcpClient(app: INestApplication, token?: string): McpTestClient {
  return createMcpTestClient(app, { path: MCP_PATH, headers: token ? { authorization: `Bearer ${token}` } : {} });
}

export function json(result: { content: Array<{ type: string; text?: string }> } | undefined): any {
  return JSON.parse(result!.content[0].text!);
}
