import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Controller,
  Get,
  Injectable,
  Module,
  Req,
  UnauthorizedException,
  ValidationPipe,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
  type MiddlewareConsumer,
  type NestMiddleware,
  type NestModule,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { EntityManager, EntitySchema, MikroORM, RequestContext } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { IsString } from 'class-validator';
import { jwtVerify } from 'jose';
import { ClsModule, ClsService } from 'nestjs-cls';
import { z } from 'zod';
import { Args, McpModule, RouteTool, Tool } from '../../src/index.js';

/**
 * A backend as an app grown over years has it, for stdio to join: nestjs-cls with its request id, an
 * AsyncLocalStorage context opened by the app's own functional and class middleware, MikroORM with a request
 * context per request (global entity manager use refused, MikroORM's default), the app's own JWT guard
 * globally, and what main.ts does (global prefix, a strict global ValidationPipe) in a function it calls.
 */
export const JWT_SECRET = 'stdio-context-secret-of-32-bytes';
const IS_PUBLIC = 'isPublic';

export class Note {
  id!: number;
  text!: string;
}
export const NOTES_TABLE = 'stdio_context_notes';
const NoteSchema = new EntitySchema<Note>({
  class: Note,
  tableName: NOTES_TABLE,
  properties: { id: { type: 'number', primary: true, autoincrement: true }, text: { type: 'string' } },
});

/** What the app's middleware opens for each request; tools read it to say what they run inside. */
export const requestStore = new AsyncLocalStorage<{ by: string[]; url: string; method: string }>();

/** The app's own gate: a request marked `x-deny` is answered 403 by middleware, before any route. */
function gate(
  req: { headers: Record<string, string> },
  res: { status(code: number): { json(body: unknown): void } },
  next: () => void,
): void {
  if (req.headers['x-deny']) res.status(403).json({ statusCode: 403, message: 'Denied by the gate' });
  else next();
}

function openStore(req: { url?: string; method?: string }, _res: unknown, next: () => void): void {
  requestStore.run({ by: ['function'], url: String(req.url), method: String(req.method) }, next);
}

@Injectable()
class MarkStore implements NestMiddleware {
  use(_req: unknown, _res: unknown, next: () => void): void {
    requestStore.getStore()?.by.push('class');
    next();
  }
}

@Injectable()
class JwtGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.get<boolean>(IS_PUBLIC, context.getHandler())) return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
    const token = /^Bearer (.+)$/.exec(req.headers?.authorization ?? '')?.[1];
    if (!token) throw new UnauthorizedException('Missing bearer token');
    try {
      req.user = (await jwtVerify(token, new TextEncoder().encode(JWT_SECRET))).payload;
    } catch {
      throw new UnauthorizedException('Invalid token');
    }
    return true;
  }
}

export class SignUp {
  @IsString()
  name!: string;
}

@Injectable()
class ContextTools {
  constructor(
    private readonly cls: ClsService,
    private readonly em: EntityManager,
  ) {}

  @Tool({ name: 'request_id', description: "nestjs-cls's id of the request" })
  requestId() {
    return { id: this.cls.getId() ?? null };
  }

  @Tool({ name: 'request_store', description: "What the app's middleware opened" })
  store() {
    return { store: requestStore.getStore() ?? null };
  }

  @Tool({ name: 'add_note', description: 'Saves a note', inputSchema: z.object({ text: z.string() }) })
  async addNote(@Args('text') text: string) {
    const note = this.em.create(Note, { text });
    await this.em.flush();
    return { id: note.id, count: await this.em.count(Note, { text }) };
  }

  @Tool({ name: 'sign_up', description: 'Takes a DTO the global pipe validates', inputSchema: SignUp })
  signUp(@Args() dto: SignUp) {
    return { name: dto.name };
  }
}

@Controller('profile')
class ProfileController {
  @RouteTool({ name: 'profile', description: 'Who the app says is calling' })
  @Get()
  profile(@Req() req: { user?: { sub?: string } }) {
    return { sub: req.user?.sub ?? null };
  }
}

@Injectable()
class Orm implements OnModuleInit, OnApplicationShutdown {
  constructor(readonly orm: MikroORM) {}

  async onModuleInit(): Promise<void> {
    await this.orm.em
      .getConnection()
      .execute(`CREATE TABLE IF NOT EXISTS ${NOTES_TABLE} (id serial PRIMARY KEY, text text NOT NULL)`);
  }

  onApplicationShutdown(): Promise<void> {
    return this.orm.close();
  }
}

@Module({
  imports: [
    ClsModule.forRoot({
      global: true,
      middleware: {
        mount: true,
        generateId: true,
        idGenerator: (req: { headers: Record<string, string> }) =>
          req.headers['x-request-id'] ?? `gen-${Math.random()}`,
      },
    }),
    McpModule.forRoot({ name: 'context', version: '1.0.0' }),
  ],
  controllers: [ProfileController],
  providers: [
    ContextTools,
    MarkStore,
    Orm,
    { provide: APP_GUARD, useClass: JwtGuard },
    {
      provide: MikroORM,
      useFactory: () =>
        MikroORM.init({
          driver: PostgreSqlDriver,
          host: '127.0.0.1',
          user: 'postgres',
          dbName: 'test',
          entities: [NoteSchema],
          discovery: { warnWhenNoEntities: false },
        }),
    },
    { provide: EntityManager, useFactory: (orm: MikroORM) => orm.em, inject: [MikroORM] },
  ],
})
export class StdioContextModule implements NestModule {
  constructor(private readonly orm: MikroORM) {}

  configure(consumer: MiddlewareConsumer): void {
    // MikroORM's per-request identity map, as its own Nest module mounts it.
    consumer
      .apply((_req: unknown, _res: unknown, next: () => void) => RequestContext.create(this.orm.em, next))
      .forRoutes('{*path}');
    consumer.apply(openStore, MarkStore).forRoutes('{*path}');
    consumer.apply(gate).forRoutes('{*path}');
  }
}

/** What main.ts does to the app before `listen`, in a function it calls. */
export function configureStdioContextApp(app: INestApplication): INestApplication {
  app.setGlobalPrefix('api');
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }));
  return app;
}
