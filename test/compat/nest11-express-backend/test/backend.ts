import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createMcpTestClient, McpTestClient } from 'nestjs-mcp/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app.module';
import { configureApp } from '../src/configure-app';

/** Where the global prefix and URI versioning (default version 1) put the MCP endpoint. */
export const MCP_PATH = '/api/mcp';
export const TIMEOUT = 30_000;

/** The app as main.ts runs it, on 127.0.0.1 and a free port, its orders table emptied. */
export async function startBackend(): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = configureApp(moduleRef.createNestApplication({ logger: false }));
  await app.listen(0, '127.0.0.1');
  await app.get(DataSource).query('DELETE FROM compat_express_backend_orders');
  return app;
}

export async function login(app: INestApplication, username = 'ada'): Promise<string> {
  const res = await request(app.getHttpServer()).post('/api/v1/auth/login').send({ username }).expect(201);
  return res.body.access_token as string;
}

export function mcpClient(app: INestApplication, token?: string): McpTestClient {
  return createMcpTestClient(app, { path: MCP_PATH, headers: token ? { authorization: `Bearer ${token}` } : {} });
}

/** The JSON a tool answered with, from its text block. */
export function json(result: { content: Array<{ type: string; text?: string }> } | undefined): any {
  return JSON.parse(result!.content[0].text!);
}
