import 'reflect-metadata';
import {
  Catch,
  Controller,
  ForbiddenException,
  Get,
  Global,
  Inject,
  Injectable,
  Module,
  Scope,
  SetMetadata,
  UnauthorizedException,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  type DynamicModule,
  type ExceptionFilter,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
  type PipeTransform,
  type Type,
} from '@nestjs/common';
import { APP_GUARD, HttpAdapterHost, REQUEST, Reflector } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import request from 'supertest';
import { McpConfigurationError, McpModule } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS, type HttpAdapterName } from '../support/create-app.js';

interface HttpRequest {
  headers: Record<string, string | undefined>;
}

/** Who may pass the tenant gate: a provider the guard injects, from a global module or one the module imports. */
@Injectable()
class TenantDirectory {
  readonly tenants = new Set(['acme']);
}

/** Every call the route's enhancers saw, for the tests to read. */
@Injectable()
class RouteLog {
  readonly seen: string[] = [];
}

/** The caller's role, read per request. */
@Injectable({ scope: Scope.REQUEST })
class CurrentRole {
  readonly role: string | undefined;

  constructor(@Inject(REQUEST) request: HttpRequest) {
    this.role = request.headers['x-role'];
  }
}

@Injectable()
class RoleGuard implements CanActivate {
  constructor(private readonly current: CurrentRole) {}

  canActivate(): boolean {
    return this.current.role === 'admin';
  }
}

@Global()
@Module({ providers: [TenantDirectory, RouteLog, CurrentRole], exports: [TenantDirectory, RouteLog, CurrentRole] })
class DirectoryModule {}

@Module({ providers: [TenantDirectory], exports: [TenantDirectory] })
class LocalDirectoryModule {}

/** No dependencies: lets only `x-role: admin` through. */
class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<HttpRequest>().headers['x-role'] === 'admin';
  }
}

@Injectable()
class TenantGuard implements CanActivate {
  constructor(private readonly directory: TenantDirectory) {}

  canActivate(context: ExecutionContext): boolean {
    return this.directory.tenants.has(context.switchToHttp().getRequest<HttpRequest>().headers['x-tenant'] ?? '');
  }
}

/** Stamps the response (on the Node response both adapters write through) and logs the controller it ran on. */
@Injectable()
class StampInterceptor implements NestInterceptor {
  constructor(private readonly log: RouteLog) {}

  intercept(context: ExecutionContext, next: CallHandler) {
    const res = context.switchToHttp().getResponse<ServerResponse & { raw?: ServerResponse }>();
    (res.raw ?? res).setHeader('x-route-interceptor', 'ran');
    this.log.seen.push(context.getClass().name);
    return next.handle();
  }
}

/** Answers a guard's refusal in the app's own shape, through the adapter it injects. */
@Catch(ForbiddenException)
@Injectable()
class FenceFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(_exception: ForbiddenException, host: ArgumentsHost): void {
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), { fenced: true }, 403);
  }
}

/** The app's catch-all, writing everything as a teapot. */
@Catch()
class CatchAllFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(_exception: unknown, host: ArgumentsHost): void {
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), { caught: true }, 418);
  }
}

class LoginGuard implements CanActivate {
  canActivate(): boolean {
    throw new UnauthorizedException();
  }
}

class TrimPipe implements PipeTransform {
  transform(value: unknown): unknown {
    return typeof value === 'string' ? value.trim() : value;
  }
}

class Unprovided {}

@Injectable()
class NeedsUnprovidedGuard implements CanActivate {
  constructor(private readonly missing: Unprovided) {}

  canActivate(): boolean {
    return this.missing !== undefined;
  }
}

const IS_PUBLIC = 'isPublic';
const Public = () => SetMetadata(IS_PUBLIC, true);

/** The app-wide auth guard of a typical backend: a bearer token everywhere but where `@Public()` says otherwise. */
@Injectable()
class AppAuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    return context.switchToHttp().getRequest<HttpRequest>().headers.authorization === 'Bearer ok';
  }
}

@Controller('orders')
class OrdersController {
  @Get()
  list(): string[] {
    return [];
  }
}

const IDENTITY = { name: 'fenced', version: '1.0.0', playground: true } as const;
const DISCOVER = mcpMessage('server/discover');

function mcp(decorators: ClassDecorator[]): DynamicModule {
  return McpModule.forRoot({ ...IDENTITY, http: { routeDecorators: decorators } });
}

async function startupError(start: () => Promise<INestApplication>): Promise<unknown> {
  try {
    const app = await start();
    await app.close();
  } catch (error) {
    return error;
  }
  throw new Error('start-up succeeded');
}

/** The endpoint (a tools/list) and the playground's view shell, with these headers. */
async function both(app: INestApplication, headers: Record<string, string>) {
  const endpoint = await createMcpTestClient(app, { headers }).post(DISCOVER);
  const playground = await request(app.getHttpServer()).get('/mcp/playground/frame').set(headers);
  return { endpoint, playground };
}

describe.each(HTTP_ADAPTERS)('http.routeDecorators on %s', (adapter: HttpAdapterName) => {
  let app: INestApplication | undefined;
  const start = async (imports: Array<Type<unknown> | DynamicModule>, providers = [], controllers: Type[] = []) => {
    app = await createApp([DirectoryModule, ...imports], providers, adapter, controllers);
    return app;
  };
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('runs a guard on the endpoint and on the playground: refused without the role, served with it', async () => {
    await start([mcp([UseGuards(AdminGuard)])]);
    const refused = await both(app!, {});
    expect(refused.endpoint.status).toBe(403);
    expect(refused.playground.status).toBe(403);
    const served = await createMcpTestClient(app!, { headers: { 'x-role': 'admin' } }).discover();
    expect(served.status).toBe(200);
    expect((await both(app!, { 'x-role': 'admin' })).playground.status).toBe(200);
  });

  it('builds a guard with its dependencies injected', async () => {
    await start([mcp([UseGuards(TenantGuard)])]);
    expect((await both(app!, { 'x-tenant': 'globex' })).endpoint.status).toBe(403);
    expect((await both(app!, { 'x-tenant': 'globex' })).playground.status).toBe(403);
    expect((await createMcpTestClient(app!, { headers: { 'x-tenant': 'acme' } }).discover()).status).toBe(200);
    expect((await both(app!, { 'x-tenant': 'acme' })).playground.status).toBe(200);
  });

  it('builds a guard that depends on a request-scoped provider for each request', async () => {
    await start([mcp([UseGuards(RoleGuard)])]);
    expect((await both(app!, { 'x-role': 'guest' })).endpoint.status).toBe(403);
    expect((await both(app!, { 'x-role': 'guest' })).playground.status).toBe(403);
    expect((await createMcpTestClient(app!, { headers: { 'x-role': 'admin' } }).discover()).status).toBe(200);
    expect((await both(app!, { 'x-role': 'admin' })).playground.status).toBe(200);
  });

  it('runs an interceptor around both routes', async () => {
    await start([mcp([UseInterceptors(StampInterceptor)])]);
    const { endpoint, playground } = await both(app!, {});
    expect(endpoint.status).toBe(200);
    expect(endpoint.headers['x-route-interceptor']).toBe('ran');
    expect(playground.headers['x-route-interceptor']).toBe('ran');
    expect(app!.get(RouteLog).seen).toEqual(['McpController', 'McpPlaygroundController']);
  });

  it("has an exception filter answer the route's refusals", async () => {
    await start([mcp([UseGuards(AdminGuard), UseFilters(FenceFilter)])]);
    const { endpoint, playground } = await both(app!, {});
    expect([endpoint.status, JSON.parse(endpoint.text)]).toEqual([403, { fenced: true }]);
    expect([playground.status, JSON.parse(playground.text)]).toEqual([403, { fenced: true }]);
  });

  it("keeps the endpoint's MCP 401 answer ahead of the app's catch-all filter", async () => {
    await start([mcp([UseGuards(LoginGuard), UseFilters(CatchAllFilter)])]);
    const { endpoint, playground } = await both(app!, {});
    expect(endpoint.status).toBe(401);
    expect(endpoint.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: 'Unauthorized' } });
    expect([playground.status, JSON.parse(playground.text)]).toEqual([418, { caught: true }]);
  });

  it("marks both routes for the app's global guard (@Public() read through Reflector), and only them", async () => {
    await start([mcp([Public()])], [{ provide: APP_GUARD, useClass: AppAuthGuard }] as never, [OrdersController]);
    const { endpoint, playground } = await both(app!, {});
    expect([endpoint.status, playground.status]).toEqual([200, 200]);
    await request(app!.getHttpServer()).get('/orders').expect(403);
  });

  it('fails start-up naming a guard whose dependencies the module cannot resolve', async () => {
    const error = await startupError(() => start([mcp([UseGuards(NeedsUnprovidedGuard)])]));
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain(
      'McpModule option http.routeDecorators: the guard NeedsUnprovidedGuard cannot be built where the MCP ' +
        'routes live (McpModule):',
    );
    expect((error as Error).message).toContain('Unprovided');
  });

  it('fails start-up naming a pipe, which the routes give nothing to transform', async () => {
    const error = await startupError(() => start([mcp([UsePipes(TrimPipe)])]));
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toBe(
      'McpModule option http.routeDecorators: the pipe TrimPipe cannot take effect: the MCP endpoint and the ' +
        "playground take no argument a pipe transforms. Put it on a tool's method or class, where the arguments " +
        'are, or make it global',
    );
  });

  it('takes them beside a forRootAsync factory, with that module’s imports for their dependencies', async () => {
    await start([
      McpModule.forRootAsync({
        imports: [LocalDirectoryModule],
        useFactory: () => ({ name: 'fenced', version: '1.0.0' }),
        playground: true,
        http: { routeDecorators: [UseGuards(AdminGuard, TenantGuard)] },
      }),
    ]);
    expect((await both(app!, { 'x-role': 'admin' })).endpoint.status).toBe(403);
    expect((await both(app!, { 'x-role': 'admin', 'x-tenant': 'acme' })).playground.status).toBe(200);
    const served = await createMcpTestClient(app!, { headers: { 'x-role': 'admin', 'x-tenant': 'acme' } }).discover();
    expect(served.status).toBe(200);
  });

  it('refuses any other http option beside the factory, which would never be read', () => {
    expect(() =>
      McpModule.forRootAsync({
        useFactory: () => ({ name: 'fenced', version: '1.0.0' }),
        http: { routeDecorators: [], maxBodyBytes: 1024 } as never,
      }),
    ).toThrow(
      new McpConfigurationError(
        'McpModule.forRootAsync: http.maxBodyBytes beside useFactory is never read: only http.routeDecorators ' +
          'goes there. Return http.maxBodyBytes from the factory',
      ),
    );
  });

  it("refuses them in a forRootAsync factory's result, saying where they go", async () => {
    const error = await startupError(() =>
      start([
        McpModule.forRootAsync({
          useFactory: () => ({ name: 'fenced', version: '1.0.0', http: { routeDecorators: [UseGuards(AdminGuard)] } }),
        }),
      ]),
    );
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toBe(
      'McpModule.forRootAsync: http.routeDecorators came from the factory, but Nest reads the routes before any ' +
        'factory runs. Give them beside it: McpModule.forRootAsync({ useFactory, http: { routeDecorators: [...] } })',
    );
  });
});
