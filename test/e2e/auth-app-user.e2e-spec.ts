import 'reflect-metadata';
import {
  CanActivate,
  Controller,
  Delete,
  HttpCode,
  Injectable,
  Module,
  SetMetadata,
  UnauthorizedException,
  UseGuards,
  type DynamicModule,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtModule, JwtService } from '@nestjs/jwt';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import request from 'supertest';
import type { McpAuthOptions } from '../../src/auth/tokens/auth-options.js';
import { McpModule, McpPrincipal, Tool, type McpContext } from '../../src/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS, type HttpAdapterName } from '../support/create-app.js';
import { RESOURCE, startLocalServer } from '../support/auth-tokens.js';

// A backend's own authorization, as the Nest docs write it: a RolesGuard reading `request.user.roles`, and a guard
// that lets a user act only on their own account reading the user's id. The same guards protect a REST route and
// a tool; a token must get the same decision from both.
const SECRET = 'the-app-signs-its-own-tokens-with-this!';
const ROLES = 'roles';
const Roles = (...roles: string[]) => SetMetadata(ROLES, roles);

@Injectable()
class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.getAllAndOverride<string[]>(ROLES, [context.getHandler(), context.getClass()]);
    if (!required) return true;
    const { user } = context.switchToHttp().getRequest<{ user?: { roles?: string[] } }>();
    return required.some((role) => user?.roles?.includes(role));
  }
}

/** Reads the id where the app's own authentication puts it: `sub` (@nestjs/jwt's payload) or `userId` (Passport's). */
function selfGuard(idOf: (user: Record<string, unknown>) => unknown) {
  @Injectable()
  class SelfGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      const { user } = context.switchToHttp().getRequest<{ user?: Record<string, unknown> }>();
      return user !== undefined && idOf(user) === 'ada';
    }
  }
  return SelfGuard;
}
const SubGuard = selfGuard((user) => user.sub);
const UserIdGuard = selfGuard((user) => user.userId);

/** The Nest docs' authentication guard for @nestjs/jwt: the verified payload becomes `request.user`. */
@Injectable()
class JwtAuthGuard implements CanActivate {
  constructor(private readonly jwt: JwtService) {}
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
    const [type, token] = req.headers.authorization?.split(' ') ?? [];
    if (type !== 'Bearer' || !token) throw new UnauthorizedException();
    try {
      req.user = await this.jwt.verifyAsync(token, { secret: SECRET });
    } catch {
      throw new UnauthorizedException();
    }
    return true;
  }
}

/** An app of opaque tokens: its guard asks its token store, and the stored user becomes `request.user`. */
const opaque: Record<string, { sub: string; roles: string[] }> = {};
@Injectable()
class OpaqueAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
    req.user = opaque[req.headers.authorization?.replace(/^Bearer /, '') ?? ''];
    if (!req.user) throw new UnauthorizedException();
    return true;
  }
}

/** The Nest docs' passport-jwt strategy: its user is not the payload but what `validate` makes of it. */
@Injectable()
class JwtStrategy extends PassportStrategy(Strategy) {
  constructor() {
    super({ jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: SECRET, audience: RESOURCE });
  }
  validate(payload: { sub: string; roles?: string[] }) {
    return { userId: payload.sub, roles: payload.roles ?? [] };
  }
}

@Module({ providers: [JwtStrategy], exports: [JwtStrategy] })
class PassportAuthModule {}

function reportsController(authGuard: Function, selfGuardClass: Function) {
  @Controller('reports')
  @UseGuards(authGuard)
  class ReportsController {
    @Delete('all')
    @HttpCode(204)
    @UseGuards(RolesGuard)
    @Roles('admin')
    deleteAll(): void {}

    @Delete('mine')
    @HttpCode(204)
    @UseGuards(selfGuardClass)
    deleteMine(): void {}
  }
  return ReportsController;
}

function reportTools(selfGuardClass: Function) {
  @Injectable()
  class ReportTools {
    @Tool({ description: 'Deletes every report' })
    @UseGuards(RolesGuard)
    @Roles('admin')
    delete_all(_args: unknown, _answers: unknown, ctx: McpContext): string {
      return ctx.principal instanceof McpPrincipal ? `deleted by ${ctx.principal.subject}` : 'deleted';
    }

    @Tool({ description: "Deletes the caller's own reports" })
    @UseGuards(selfGuardClass)
    delete_mine(): string {
      return 'deleted mine';
    }
  }
  return ReportTools;
}

interface Setup {
  name: string;
  /** The app's REST authentication and the guard that reads its user's id. */
  restGuard: Function;
  selfGuard: Function;
  imports: () => Array<DynamicModule | Function>;
  /** A token for `sub` with `roles`, as the app issues it. */
  token(sub: string, roles: string[]): Promise<string>;
}

const jwtService = new JwtService({ secret: SECRET, signOptions: { expiresIn: '5m', audience: RESOURCE } });
const signed = async (sub: string, roles: string[]) => jwtService.sign({ sub, roles });

let introspection: { url: string; close(): Promise<void> };

beforeAll(async () => {
  introspection = await startLocalServer((_req, body, res) => {
    const known = opaque[new URLSearchParams(body).get('token') ?? ''];
    const exp = Math.floor(Date.now() / 1000) + 60;
    const answer = known ? { active: true, aud: RESOURCE, exp, ...known } : { active: false };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
});
afterAll(() => introspection.close());

const withJwtModule = () => JwtModule.register({ secret: SECRET });
const mcpWith = (auth: McpAuthOptions) => McpModule.forRoot({ name: 'r', version: '1', auth });

const SETUPS: Setup[] = [
  {
    name: '@nestjs/jwt guard, auth.jwt (default: the claims are request.user)',
    restGuard: JwtAuthGuard,
    selfGuard: SubGuard,
    imports: () => [withJwtModule(), mcpWith({ resource: RESOURCE, jwt: { secret: SECRET, typ: 'JWT' } })],
    token: signed,
  },
  {
    name: 'passport-jwt strategy, auth.jwt with toUser reusing its validate()',
    restGuard: AuthGuard('jwt'),
    selfGuard: UserIdGuard,
    imports: () => [
      withJwtModule(),
      PassportModule,
      McpModule.forRootAsync({
        imports: [PassportAuthModule],
        inject: [JwtStrategy],
        useFactory: (strategy: JwtStrategy) => ({
          name: 'r',
          version: '1',
          auth: {
            resource: RESOURCE,
            jwt: { secret: SECRET, typ: 'JWT' },
            toUser: (principal: McpPrincipal) => strategy.validate(principal.claims as { sub: string }),
          } satisfies McpAuthOptions,
        }),
      }),
      PassportAuthModule,
    ],
    token: signed,
  },
  {
    name: 'opaque tokens, auth.introspection (default: the introspection answer is request.user)',
    restGuard: OpaqueAuthGuard,
    selfGuard: SubGuard,
    imports: () => [
      withJwtModule(),
      mcpWith({
        resource: RESOURCE,
        authorizationServers: ['https://auth.example.com'],
        introspection: { endpoint: `${introspection.url}/introspect`, cacheTtlMs: 0 },
      }),
    ],
    async token(sub, roles) {
      const token = `opaque-${sub}-${roles.join('-')}`;
      opaque[token] = { sub, roles };
      return token;
    },
  },
  {
    name: 'auth.verify (default: what it returns is request.user)',
    restGuard: JwtAuthGuard,
    selfGuard: SubGuard,
    imports: () => [
      withJwtModule(),
      mcpWith({ resource: RESOURCE, verify: (token) => jwtService.verify(token, { secret: SECRET }) }),
    ],
    token: signed,
  },
];

describe.each(HTTP_ADAPTERS)('the app’s own guards read the same request.user on MCP as on REST (%s)', (adapter) => {
  describe.each(SETUPS)('$name', (setup) => {
    let app: INestApplication;
    beforeAll(async () => {
      app = await boot(adapter, setup);
    });
    afterAll(() => app.close());

    const rest = (path: string, token: string) =>
      request(app.getHttpServer()).delete(`/reports/${path}`).set('authorization', `Bearer ${token}`);
    const tool = async (name: string, token: string) => {
      const mcp = createMcpTestClient(app, { headers: { authorization: `Bearer ${token}` } });
      const { result, error } = await mcp.callTool(name);
      expect(error).toBeUndefined();
      return result!;
    };

    it('lets an admin through the RolesGuard on both, and stops a viewer on both', async () => {
      const admin = await setup.token('ada', ['admin']);
      const viewer = await setup.token('bob', ['viewer']);
      await rest('all', admin).expect(204);
      await rest('all', viewer).expect(403);
      const allowed = await tool('delete_all', admin);
      expect(allowed.isError).toBeFalsy();
      expect(allowed.content[0]).toMatchObject({ text: expect.stringMatching(/^deleted/) });
      expect(await tool('delete_all', viewer)).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Error: Forbidden resource' }],
      });
    });

    it('decides on the user’s id as the REST route does', async () => {
      const ada = await setup.token('ada', []);
      const bob = await setup.token('bob', []);
      await rest('mine', ada).expect(204);
      await rest('mine', bob).expect(403);
      expect((await tool('delete_mine', ada)).content).toEqual([{ type: 'text', text: 'deleted mine' }]);
      expect((await tool('delete_mine', bob)).isError).toBe(true);
    });
  });
});

async function boot(adapter: HttpAdapterName, setup: Setup): Promise<INestApplication> {
  const imports = setup.imports() as Array<DynamicModule>;
  return createApp(imports, [RolesGuard, reportTools(setup.selfGuard) as never], adapter, [
    reportsController(setup.restGuard, setup.selfGuard) as never,
  ]);
}

describe('auth.toUser', () => {
  let app: INestApplication | undefined;
  afterEach(() => app?.close());

  it('answers 401 invalid_token when it finds no user for a valid token, and the tool never runs', async () => {
    app = await createApp(
      [mcpWith({ resource: RESOURCE, jwt: { secret: SECRET, typ: 'JWT' }, toUser: async () => undefined })],
      [RolesGuard, reportTools(SubGuard) as never],
    );
    const mcp = createMcpTestClient(app, { headers: { authorization: `Bearer ${await signed('ada', ['admin'])}` } });
    const { status, error } = await mcp.callTool('delete_all');
    expect(status).toBe(401);
    expect(error).toMatchObject({ code: -31401, message: 'Unauthorized: The access token names no user' });
  });

  it('is refused at start-up beside fromRequest, whose request.user is the app’s already', async () => {
    await expect(
      createApp([mcpWith({ resource: RESOURCE, fromRequest: (req) => req.user, toUser: (p) => p })]),
    ).rejects.toThrow('auth.toUser maps a principal the module verified');
  });
});
