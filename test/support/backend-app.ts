import {
  Catch,
  Controller,
  ForbiddenException,
  HttpException,
  HttpStatus,
  Injectable,
  Module,
  NotFoundException,
  Post,
  SetMetadata,
  UseGuards,
  ValidationPipe,
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  type DynamicModule,
  type ExceptionFilter,
  type ExecutionContext,
  type INestApplication,
  type LoggerService,
  type NestInterceptor,
  type VersioningOptions,
  Body,
  Delete,
  Get,
  VERSION_NEUTRAL,
} from '@nestjs/common';
import {
  APP_FILTER,
  APP_GUARD,
  APP_INTERCEPTOR,
  APP_PIPE,
  HttpAdapterHost,
  NestFactory,
  Reflector,
} from '@nestjs/core';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import {
  SkipThrottle,
  Throttle,
  ThrottlerGuard,
  ThrottlerModule,
  ThrottlerStorageService,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { IsInt, IsString, Min } from 'class-validator';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import type { Observable } from 'rxjs';
import { z } from 'zod';
import {
  Args,
  McpModule,
  Resource,
  ResourceTemplate,
  Tool,
  ToolError,
  type McpModuleOptions,
} from '../../src/index.js';
import type { HttpAdapterName } from './create-app.js';
import { JWT_SECRET, type BackendRecordSnapshot } from './backend-process.js';

/**
 * An existing backend as `nest new` grows one: global prefix and URI versioning with a default version, a
 * global ValidationPipe, a passport-jwt (HS256) global guard with a `@Public()` escape, a global throttler, a
 * logging interceptor, the catch-all exception filter of the Nest docs (HttpAdapterHost) and, on Fastify, a
 * Fastify-style `@Catch(HttpException)` filter writing `reply.status().send()`. Tools, a resource template
 * and a REST twin live side by side.
 */
export const IS_PUBLIC = 'isPublic';
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** What the app's enhancers saw, for the tests to read. */
export class BackendRecord implements BackendRecordSnapshot {
  readonly intercepted: string[] = [];
  readonly throttled: string[] = [];
  readonly received: Record<string, unknown>[] = [];
  readonly logs: Array<{ level: string; message: string; stack?: string }> = [];

  clear(): void {
    for (const list of [this.intercepted, this.throttled, this.received, this.logs]) list.splice(0);
  }
}

@Injectable()
class JwtPassportStrategy extends PassportStrategy(JwtStrategy, 'jwt') {
  constructor() {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: JWT_SECRET,
      algorithms: ['HS256'],
    });
  }

  validate(payload: { sub: string }): { userId: string } {
    return { userId: payload.sub };
  }
}

@Injectable()
class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  canActivate(context: ExecutionContext) {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    return isPublic ? true : super.canActivate(context);
  }
}

@Injectable()
class LoggingInterceptor implements NestInterceptor {
  constructor(private readonly record: BackendRecord) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    this.record.intercepted.push(`${context.getClass().name}.${context.getHandler().name}`);
    return next.handle();
  }
}

/** The throttler's own storage, recording each count it takes (by throttler name). */
class RecordingThrottlerStorage extends ThrottlerStorageService implements ThrottlerStorage {
  constructor(private readonly record: BackendRecord) {
    super();
  }

  increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string) {
    this.record.throttled.push(throttlerName);
    return super.increment(key, ttl, limit, blockDuration, throttlerName);
  }
}

/** The catch-all filter of docs.nestjs.com (exception-filters, "Catch everything"), as apps copy it. */
@Catch()
export class CatchEverythingFilter implements ExceptionFilter {
  constructor(private readonly httpAdapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { httpAdapter } = this.httpAdapterHost;
    const ctx = host.switchToHttp();
    const httpStatus = exception instanceof HttpException ? exception.getStatus() : HttpStatus.INTERNAL_SERVER_ERROR;
    const responseBody = {
      statusCode: httpStatus,
      timestamp: new Date().toISOString(),
      path: httpAdapter.getRequestUrl(ctx.getRequest()),
    };
    httpAdapter.reply(ctx.getResponse(), responseBody, httpStatus);
  }
}

/** A Fastify-style filter: the reply's own `status().send()`. */
@Catch(HttpException)
export class FastifyHttpExceptionFilter implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const reply = ctx.getResponse<{ status(code: number): { send(body: unknown): void } }>();
    const request = ctx.getRequest<{ url: string }>();
    reply.status(exception.getStatus()).send({
      statusCode: exception.getStatus(),
      message: `${exception.message} (filtered)`,
      path: request.url,
    });
  }
}

class CustomerDto {
  @IsString()
  name!: string;

  @IsInt()
  @Min(18)
  age!: number;
}

const Order = z.object({
  customer: z.string(),
  item: z.string(),
  quantity: z.coerce.number().int().positive().default(1),
  note: z
    .string()
    .transform((text) => text.trim())
    .optional(),
});

@Injectable()
class DenyGuard implements CanActivate {
  canActivate(): boolean {
    throw new ForbiddenException();
  }
}

@Injectable()
export class ShopTools {
  constructor(private readonly record: BackendRecord) {}

  @Tool({ description: 'Creates an order', inputSchema: Order })
  create_order(@Args() order: z.infer<typeof Order>): string {
    this.record.received.push(order);
    return 'created';
  }

  @Tool({
    description: 'Reads an order',
    inputSchema: z.object({ id: z.number() }),
    outputSchema: z.object({ id: z.number(), status: z.string() }),
  })
  get_order(@Args('id') id: number): unknown {
    return { id, status: 'paid', internalCost: 12 };
  }

  @Tool({ description: 'Finds an order', inputSchema: { type: 'object', properties: { id: { type: 'number' } } } })
  find_order(@Args('id') id: number): never {
    throw new NotFoundException(`Order ${id} not found`);
  }

  @Tool({ description: 'Registers a customer', inputSchema: CustomerDto })
  register_customer(@Args() customer: CustomerDto): string {
    this.record.received.push({ ...customer });
    return `registered ${customer.name}`;
  }

  @Tool({ description: 'Out of stock' })
  reserve(): never {
    throw new ToolError('out of stock');
  }

  @Tool({ description: 'A bug' })
  crash(): never {
    throw new TypeError('db connection lost');
  }

  @UseGuards(DenyGuard)
  @Tool({ description: 'Admins only' })
  refund(): string {
    return 'refunded';
  }

  @ResourceTemplate({ uriTemplate: 'orders://{id}', name: 'order' })
  order(_uri: string, { id }: { id: string }): string {
    if (id !== '1') throw new NotFoundException(`Order ${id} not found`);
    return JSON.stringify({ id, status: 'paid' });
  }

  @Resource({ uri: 'shop://closed', name: 'closed' })
  closed(): never {
    throw new ForbiddenException('the shop is closed');
  }
}

/** Tools counted per tool by the throttler, as REST routes with the same decorators are. */
@UseGuards(ThrottlerGuard)
@Injectable()
export class ThrottledTools {
  @Throttle({ default: { limit: 2, ttl: 60_000 } })
  @Tool({ description: 'Two calls a minute' })
  scarce(): string {
    return 'scarce';
  }

  @Tool({ description: 'Plenty' })
  plenty(): string {
    return 'plenty';
  }

  @Tool({ description: 'Also plenty' })
  abundant(): string {
    return 'abundant';
  }
}

@Controller('orders')
export class OrdersController {
  @Post()
  create(@Body() order: CustomerDto): CustomerDto {
    return order;
  }
}

/** How the test process reads the record (not part of a real backend). */
@Public()
@SkipThrottle()
@Controller({ path: '_record', version: VERSION_NEUTRAL })
export class RecordController {
  constructor(private readonly record: BackendRecord) {}

  @Get()
  read(): BackendRecordSnapshot {
    return this.record;
  }

  @Delete()
  clear(): void {
    this.record.clear();
  }
}

/** The app module, as `bootstrapStdio` takes it too: its global pipe and filters are providers, so both get them. */
export function backendModule(
  record: BackendRecord,
  mcp: Partial<McpModuleOptions> = {},
  adapter: HttpAdapterName = 'express',
): DynamicModule {
  const filters = adapter === 'fastify' ? [CatchEverythingFilter, FastifyHttpExceptionFilter] : [CatchEverythingFilter];
  @Module({
    imports: [
      PassportModule,
      ThrottlerModule.forRoot({
        throttlers: [{ name: 'default', ttl: 60_000, limit: 1_000 }],
        storage: new RecordingThrottlerStorage(record),
      }),
      McpModule.forRoot({ name: 'shop', version: '1.0.0', observability: { redactErrors: false }, ...mcp }),
    ],
    controllers: [OrdersController, RecordController],
    providers: [
      { provide: BackendRecord, useValue: record },
      JwtPassportStrategy,
      DenyGuard,
      ShopTools,
      ThrottledTools,
      { provide: APP_GUARD, useClass: JwtAuthGuard },
      { provide: APP_GUARD, useClass: ThrottlerGuard },
      { provide: APP_INTERCEPTOR, useClass: LoggingInterceptor },
      {
        provide: APP_PIPE,
        useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
      },
      ...filters.map((filter) => ({ provide: APP_FILTER, useClass: filter })),
    ],
  })
  class AppModule {}
  return { module: AppModule };
}

/** A logger that keeps what Nest and the module log. */
export function recordingLogger(record: BackendRecord): LoggerService {
  const keep =
    (level: string) =>
    (message: unknown, ...rest: unknown[]) => {
      const stack = rest.find((part) => typeof part === 'string' && part.includes('\n    at '));
      record.logs.push({
        level,
        message: String(message instanceof Error ? message.stack : message),
        stack: stack as string,
      });
    };
  return { log: keep('log'), warn: keep('warn'), error: keep('error'), debug: keep('debug'), verbose: keep('verbose') };
}

/** The backend on Express or Fastify, set up as its `main.ts` would. */
export async function createBackend(
  adapter: HttpAdapterName,
  versioning: VersioningOptions | undefined,
  mcp: Partial<McpModuleOptions>,
): Promise<INestApplication> {
  const record = new BackendRecord();
  const module = backendModule(record, mcp, adapter);
  const logger = recordingLogger(record);
  const app =
    adapter === 'fastify'
      ? await NestFactory.create(module, new FastifyAdapter(), { logger })
      : await NestFactory.create(module, { logger });
  app.setGlobalPrefix('api');
  if (versioning) app.enableVersioning(versioning);
  return app;
}
