import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { ObservabilityAppModule } from '../../examples/observability/app.module.js';
import { MCPServer } from '../../src/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';
import { registerFeatures } from '../support/feature-server.js';

describe('examples/observability: onCall metrics and a @nestjs/terminus health indicator', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createApp([ObservabilityAppModule]);
    registerFeatures(app.get(MCPServer));
  });
  afterAll(() => app.close());

  it('reports the MCP server up, with per-tool counts from the onCall hook', async () => {
    const mcp = createMcpTestClient(app);
    await mcp.callTool('add', { a: 1, b: 1 });
    await mcp.callTool('add', { a: 2, b: 2 });
    await mcp.callTool('explode');
    const res = await request(app.getHttpServer()).get('/health').expect(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.details.mcp.status).toBe('up');
    expect(res.body.details.mcp.failedCalls).toBe(1);
    expect(res.body.details.mcp.calls['tools/call add']).toMatchObject({ calls: 2, errors: 0 });
    expect(res.body.details.mcp.calls['tools/call explode']).toMatchObject({ calls: 1, errors: 1 });
  });
});
