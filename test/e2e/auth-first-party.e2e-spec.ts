import 'reflect-metadata';
import {
  Body,
  Controller,
  Injectable,
  Module,
  Post,
  SetMetadata,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { JwtModule, JwtService } from '@nestjs/jwt';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import request from 'supertest';
import type { McpAuthOptions } from '../../src/auth/tokens/auth-options.js';
import { McpModule, Tool, type McpContext } from '../../src/index.js';
import { createMcpTestClient, mcpMessage, type McpTestResponse } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { challengeParams, RESOURCE, RESOURCE_METADATA_URL } from '../support/auth-tokens.js';

// The @nestjs/jwt setup of the Nest docs: one HMAC secret, HS256, tokens issued by the app's own login route.
const SECRET = 'a-first-party-secret-of-at-least-32-bytes';
const OTHER_SECRET = 'another-app-secret-of-at-least-32-bytes!';

const IS_PUBLIC = 'isPublic';
function Public() {
  return SetMetadata(IS_PUBLIC, true);
}

@Injectable()
class WhoAmI {
  @Tool({ name: 'whoami', description: 'Who is calling' })
  whoami(_args: unknown, _responses: unknown, ctx: McpContext) {
    const principal = ctx.principal as { subject?: string; claims?: Record<string, unknown> };
    return {
      subject: principal.subject ?? null,
      claims: principal.claims ?? null,
      user: (ctx.httpRequest as { user?: unknown }).user ?? null,
    };
  }
}

@Controller('auth')
class AuthController {
  constructor(private readonly jwt: JwtService) {}

  @Public()
  @Post('login')
  login(@Body() body: { username: string }) {
    return { access_token: this.jwt.sign({ sub: body.username, username: body.username }) };
  }

  @Post('profile')
  profile() {
    return { ok: true };
  }
}

/** passport-jwt, configured as the Nest docs do, with the same secret the app signs with. */
@Injectable()
class JwtStrategy extends PassportStrategy(Strategy) {
  constructor() {
    super({ jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), ignoreExpiration: false, secretOrKey: SECRET });
  }

  validate(payload: { sub: string; username: string }) {
    return { userId: payload.sub, username: payload.username };
  }
}

/** The docs' global guard: every route needs a token unless it is @Public(). */
@Injectable()
class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  canActivate(context: ExecutionContext) {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    return super.canActivate(context);
  }
}

const jwtModule = JwtModule.register({ secret: SECRET, signOptions: { expiresIn: '15m', audience: RESOURCE } });

function appModule(auth: McpAuthOptions, withGuard: boolean) {
  @Module({
    imports: [jwtModule, PassportModule, McpModule.forRoot({ name: 'first-party', version: '1.0.0', auth })],
    controllers: [AuthController],
    providers: [WhoAmI, JwtStrategy, ...(withGuard ? [{ provide: APP_GUARD, useClass: JwtAuthGuard }] : [])],
  })
  class AppModule {}
  return AppModule;
}

const call = (app: INestApplication, token?: string) =>
  createMcpTestClient(app).post(
    mcpMessage('tools/call', { name: 'whoami', arguments: {} }),
    token === undefined ? {} : { authorization: `Bearer ${token}` },
  );
const text = (res: McpTestResponse) => JSON.parse(res.body.result.content[0].text);

async function login(app: INestApplication): Promise<string> {
  const res = await request(app.getHttpServer()).post('/auth/login').send({ username: 'ada' }).expect(201);
  return res.body.access_token as string;
}

/** A token as the app's JwtService signs it, but expired a minute ago (or signed with another secret). */
function expiredToken(secret = SECRET): string {
  const now = Math.floor(Date.now() / 1000);
  return new JwtService({ secret }).sign({ sub: 'ada', username: 'ada', aud: RESOURCE, iat: now - 120, exp: now - 60 });
}

function expectChallenge(res: McpTestResponse, params: Record<string, string> | undefined) {
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe(-31401);
  const challenge = challengeParams(res.headers['www-authenticate']);
  expect(challenge).toEqual({ resource_metadata: RESOURCE_METADATA_URL, ...params });
}

const FIRST_PARTY_JWT: McpAuthOptions = { resource: RESOURCE, jwt: { secret: SECRET, typ: 'JWT' } };

describe.each(HTTP_ADAPTERS)('First-party tokens: @nestjs/jwt HS256 with auth.jwt.secret (%s)', (adapter) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([appModule(FIRST_PARTY_JWT, false)], [], adapter);
  });
  afterAll(() => app.close());

  it("accepts the token the app's JwtService signed, as the principal", async () => {
    const res = await call(app, await login(app));
    expect(res.status).toBe(200);
    expect(text(res)).toMatchObject({ subject: 'ada', claims: { sub: 'ada', username: 'ada', aud: RESOURCE } });
  });

  it('tells no token, a garbage token, an expired one and one signed with another secret apart', async () => {
    expectChallenge(await call(app), undefined);
    expectChallenge(await call(app, 'not-a-jwt'), {
      error: 'invalid_token',
      error_description: 'The access token is invalid',
    });
    expectChallenge(await call(app, expiredToken()), {
      error: 'invalid_token',
      error_description: 'The access token expired',
    });
    expectChallenge(await call(app, expiredToken(OTHER_SECRET).replace(/\.[^.]+$/, '.' + 'A'.repeat(43))), {
      error: 'invalid_token',
      error_description: 'The access token is invalid',
    });
    const otherSecret = new JwtService({ secret: OTHER_SECRET, signOptions: { audience: RESOURCE } }).sign({
      sub: 'x',
    });
    expectChallenge(await call(app, otherSecret), {
      error: 'invalid_token',
      error_description: 'The access token is invalid',
    });
  });

  it('refuses an unsigned token (alg none) and one for another audience', async () => {
    const [, payload] = (await login(app)).split('.');
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    expectChallenge(await call(app, unsigned), {
      error: 'invalid_token',
      error_description: 'The access token is invalid',
    });
    const elsewhere = new JwtService({
      secret: SECRET,
      signOptions: { audience: 'https://other.example.com', expiresIn: '1m' },
    }).sign({
      sub: 'ada',
    });
    expectChallenge(await call(app, elsewhere), {
      error: 'invalid_token',
      error_description: 'The access token was not issued for this resource',
    });
  });

  it('publishes metadata without authorization_servers: the app is its own issuer', async () => {
    const res = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/mcp').expect(200);
    expect(res.body).toEqual({ resource: RESOURCE, bearer_methods_supported: ['header'] });
  });
});

describe.each(HTTP_ADAPTERS)('First-party tokens: a global passport-jwt guard refuses (%s)', (adapter) => {
  describe.each([
    [
      'auth.fromRequest (the guard verifies)',
      { resource: RESOURCE, fromRequest: (req: { user?: unknown }) => req.user },
    ],
    ['auth.jwt.secret (both verify)', FIRST_PARTY_JWT],
  ] as const)('with %s', (_label, auth) => {
    let app: INestApplication;

    beforeAll(async () => {
      app = await createApp([appModule(auth, true)], [], adapter);
    });
    afterAll(() => app.close());

    it("lets the guard's request.user through to the tool", async () => {
      const res = await call(app, await login(app));
      expect(res.status).toBe(200);
      expect(text(res).user).toEqual({ userId: 'ada', username: 'ada' });
    });

    it("answers the guard's refusal with the MCP challenge, an expired token told apart from garbage", async () => {
      expectChallenge(await call(app), undefined);
      expectChallenge(await call(app, 'garbage'), {
        error: 'invalid_token',
        error_description: 'The access token is invalid',
      });
      expectChallenge(await call(app, expiredToken()), {
        error: 'invalid_token',
        error_description: 'The access token expired',
      });
      expectChallenge(await call(app, 'bad token with spaces'), {
        error: 'invalid_token',
        error_description: 'The Bearer token is malformed',
      });
    });

    it("leaves the app's other routes to the guard and its own 401", async () => {
      const res = await request(app.getHttpServer()).post('/auth/profile').send({});
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.body).toMatchObject({ statusCode: 401, message: 'Unauthorized' });
    });
  });
});

describe('auth.jwt start-up checks', () => {
  it.each([
    [
      'HMAC named with a key set',
      { issuer: 'https://a.example.com', jwks: { keys: [] }, algorithms: ['HS256'] },
      'auth.jwt.algorithms names HS256: HMAC needs auth.jwt.secret, not a key set',
    ],
    [
      'an asymmetric algorithm with a secret',
      { secret: SECRET, algorithms: ['RS256'] },
      'auth.jwt.algorithms with a secret takes HS256, HS384 and HS512 only; got ["RS256"]',
    ],
    [
      'a secret shorter than the hash',
      { secret: 'short', algorithms: ['HS256'] },
      'auth.jwt.secret has 5 bytes; HS256 needs at least 32 (RFC 7518 §3.2): use a longer random secret',
    ],
    [
      'a 32-byte secret for HS512',
      { secret: 'x'.repeat(32), algorithms: ['HS512'] },
      'auth.jwt.secret has 32 bytes; HS512 needs at least 64',
    ],
    [
      'a secret and a key set',
      { secret: SECRET, jwks: { keys: [] } },
      'auth.jwt needs exactly one of jwksUri, jwks and secret; got jwks, secret',
    ],
    ['a key set without issuer', { jwks: { keys: [] } }, 'auth.jwt.issuer is required with jwksUri or jwks'],
  ])('refuses %s', async (_label, jwt, message) => {
    const auth = { resource: RESOURCE, authorizationServers: ['https://a.example.com'], jwt };
    await expect(createApp([McpModule.forRoot({ name: 'x', version: '1', auth })])).rejects.toThrow(message);
  });

  it('still requires authorizationServers when tokens come from a key set', async () => {
    const jwt = { issuer: 'https://a.example.com', jwks: { keys: [] } };
    await expect(
      createApp([McpModule.forRoot({ name: 'x', version: '1', auth: { resource: RESOURCE, jwt } })]),
    ).rejects.toThrow(
      'auth.authorizationServers needs at least one issuer URL with jwt.jwksUri, jwt.jwks or introspection',
    );
  });
});
