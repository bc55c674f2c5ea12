import 'reflect-metadata';
import {
  CanActivate,
  Controller,
  Delete,
  ExecutionContext,
  ForbiddenException,
  Get,
  Injectable,
  Ip,
  Module,
  Param,
  UseGuards,
  type INestApplication,
} from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { McpModule, RequireScopes, RouteTool } from '../../src/index.js';
import { createMcpTestClient, type McpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

/** Every handler that ran, in order: a refused call must add nothing. */
const ran: string[] = [];

const auth = {
  resource: 'http://127.0.0.1/mcp',
  authorizationServers: ['https://auth.example.com'],
  verify: (token: string) => (token === 'clerk' ? { sub: 'clerk', scope: 'orders:read orders:write' } : null),
};

/** Registered first: on Express, the first route that matches wins, so this catch-all shadows `/items/:id`. */
@Controller()
class FallbackController {
  @Get('items/*')
  fallback(): { fallback: true } {
    ran.push('fallback');
    return { fallback: true };
  }
}

@Controller('orders')
class OrdersController {
  /** Not a tool, admin only: no MCP caller may reach it. */
  @Get()
  @RequireScopes('admin')
  list(): { orders: number[] } {
    ran.push('list');
    return { orders: [1, 2, 3] };
  }

  @Get('stats')
  @RequireScopes('admin')
  stats(): { revenue: number } {
    ran.push('stats');
    return { revenue: 1_000_000 };
  }

  @Delete()
  @RequireScopes('admin')
  deleteAll(): { deleted: 'all' } {
    ran.push('deleteAll');
    return { deleted: 'all' };
  }

  @Get(':id')
  @RouteTool({ name: 'get_order' })
  @RequireScopes('orders:read')
  findOne(@Param('id') id: string): { id: string } {
    ran.push(`findOne ${id}`);
    return { id };
  }

  @Delete(':id')
  @RouteTool({ name: 'delete_order' })
  @RequireScopes('orders:write')
  remove(@Param('id') id: string): { deleted: string } {
    ran.push(`remove ${id}`);
    return { deleted: id };
  }
}

@Controller('items')
class ItemsController {
  @Get(':id')
  @RouteTool({ name: 'get_item' })
  findOne(@Param('id') id: string): { item: string } {
    ran.push(`item ${id}`);
    return { item: id };
  }
}

/** "Internal only": the app's own guard on the caller's address, as the app resolves it. */
@Injectable()
class InternalOnly implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { ip } = context.switchToHttp().getRequest<{ ip: string }>();
    if (!/^(::ffff:)?127\.0\.0\.1$|^::1$/.test(ip)) throw new ForbiddenException(`internal only, not ${ip}`);
    return true;
  }
}

@Controller('internal')
class InternalController {
  @Get('report')
  @UseGuards(InternalOnly)
  @RouteTool({ name: 'internal_report' })
  report(@Ip() ip: string): { ip: string } {
    ran.push(`report ${ip}`);
    return { ip };
  }
}

@Module({ controllers: [FallbackController, OrdersController, ItemsController, InternalController] })
class ShopModule {}

const mcpModule = () => McpModule.forRoot({ name: 'shop', version: '1.0.0', auth });

describe.each(HTTP_ADAPTERS)('a route tool runs its own route or nothing (%s)', (adapter) => {
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    app = await createApp([ShopModule, mcpModule()], [], adapter);
    mcp = createMcpTestClient(app, { headers: { authorization: 'Bearer clerk' } });
  });
  afterAll(async () => {
    await mcp.close();
    await app.close();
  });
  beforeEach(() => (ran.length = 0));

  it('publishes path parameters as required arguments', async () => {
    const { result } = await mcp.listTools();
    const tool = result!.tools.find((t) => t.name === 'delete_order')!;
    expect(tool.inputSchema.required).toEqual(['id']);
  });

  it.each([
    ['an empty id', { id: '' }],
    ['a missing id', {}],
    ['a null id', { id: null }],
    ['a "." id', { id: '.' }],
    ['a ".." id', { id: '..' }],
  ])('delete_order with %s is refused with -32602 naming the argument, and nothing runs', async (_, args) => {
    const { error, result } = await mcp.callTool('delete_order', args);
    expect(result).toBeUndefined();
    expect(error?.code).toBe(-32602);
    expect(error?.message).toContain('"id"');
    expect(ran).toEqual([]);
  });

  it.each([
    ['an empty id', { id: '' }],
    ['a missing id', {}],
    ['a null id', { id: null }],
  ])('get_order with %s never answers with the admin-only list', async (_, args) => {
    const { error } = await mcp.callTool('get_order', args);
    expect(error?.code).toBe(-32602);
    expect(ran).toEqual([]);
  });

  it('get_order with "stats" does not run the static sibling GET /orders/stats', async () => {
    const { result, error } = await mcp.callTool('get_order', { id: 'stats' });
    expect(error).toBeUndefined();
    expect(result?.isError).toBe(true);
    expect(JSON.stringify(result?.content)).toContain('a route other than GET /orders/:id');
    expect(JSON.stringify(result)).not.toContain('revenue');
    expect(ran).toEqual([]);
  });

  it('a catch-all route never runs for a route tool', async () => {
    const { result } = await mcp.callTool('get_item', { id: 'seven' });
    expect(ran).not.toContain('fallback');
    if (adapter === 'express') {
      // Express tries routes in registration order: the catch-all came first, and was refused before it ran.
      expect(result?.isError).toBe(true);
      expect(ran).toEqual([]);
    } else {
      // Fastify's router prefers the parameter to the wildcard: the tool's own route answers.
      expect(result?.structuredContent).toEqual({ item: 'seven' });
      expect(ran).toEqual(['item seven']);
    }
  });

  it('still runs its own route for a proper id, and HTTP clients still reach the other routes', async () => {
    const { result } = await mcp.callTool('get_order', { id: '42' });
    expect(result?.structuredContent).toEqual({ id: '42' });
    await request(app.getHttpServer()).get('/orders/stats').expect(200, { revenue: 1_000_000 });
    expect(ran).toEqual(['findOne 42', 'stats']);
  });
});

/** The app behind a reverse proxy it trusts: Express's `trust proxy`, Fastify's `trustProxy`. */
async function behindProxy(adapter: 'express' | 'fastify'): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [ShopModule, mcpModule()] }).compile();
  if (adapter === 'express') {
    const app = moduleRef.createNestApplication({ logger: false });
    (app.getHttpAdapter().getInstance() as { set(key: string, value: unknown): void }).set('trust proxy', true);
    await app.init();
    return app;
  }
  const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter({ trustProxy: true }), {
    logger: false,
  });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

describe.each(HTTP_ADAPTERS)('a route tool sees the caller as the app resolves it (%s)', (adapter) => {
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    app = await behindProxy(adapter);
    mcp = createMcpTestClient(app, { headers: { authorization: 'Bearer clerk' } });
  });
  afterAll(async () => {
    await mcp.close();
    await app.close();
  });
  beforeEach(() => (ran.length = 0));

  it('refuses through the tool the forwarded caller its HTTP route refuses', async () => {
    const forwarded = { 'x-forwarded-for': '203.0.113.7' };
    const http = await request(app.getHttpServer()).get('/internal/report').set(forwarded);
    expect(http.status).toBe(403);
    const { result } = await mcp.callTool('internal_report', {}, { headers: forwarded });
    expect(result?.isError).toBe(true);
    expect(JSON.stringify(result?.content)).toContain('internal only, not 203.0.113.7');
    expect(ran).toEqual([]);
  });

  it('serves a caller the proxy says is local, with that address', async () => {
    const { result } = await mcp.callTool('internal_report', {}, { headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect(result?.structuredContent).toEqual({ ip: '127.0.0.1' });
  });
});
