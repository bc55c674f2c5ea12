import { Test } from '@nestjs/testing';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { createMcpTestClient, McpTestClient } from 'nestjs-mcp/testing';
import request from 'supertest';
import { AppModule } from '../src/app.module';
import { configureApp } from '../src/configure-app';

export const TIMEOUT = 30_000;

/** The app as main.ts runs it, on 127.0.0.1 and a free port. */
export async function startBackend(): Promise<NestFastifyApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = await configureApp(
    moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false }),
  );
  await app.listen(0, '127.0.0.1');
  return app;
}

/** The signed session cookie the app's login route sets. */
export async function login(app: NestFastifyApplication, username = 'ada'): Promise<string> {
  const res = await request(app.getHttpServer()).post('/auth/login').send({ username }).expect(201);
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0];
  return cookie.split(';')[0];
}

export function mcpClient(app: NestFastifyApplication, cookie?: string, tenant = 'acme'): McpTestClient {
  return createMcpTestClient(app, { headers: { 'x-tenant-id': tenant, ...(cookie ? { cookie } : {}) } });
}

/** The text of a tool result's blocks, joined. */
export function text(result: { content: Array<{ type: string; text?: string }> } | undefined): string {
  return (result?.content ?? []).map((block) => block.text ?? '').join(' ');
}
