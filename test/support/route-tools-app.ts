import 'reflect-metadata';
import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  Headers,
  Injectable,
  Ip,
  Module,
  Param,
  ParseIntPipe,
  Post,
  Put,
  Query,
  Req,
  StreamableFile,
  UnauthorizedException,
  UseGuards,
  UseInterceptors,
  ValidationPipe,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type MiddlewareConsumer,
  type NestInterceptor,
  type NestModule,
} from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiParam, ApiProperty, ApiQuery } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Min } from 'class-validator';
import { Type } from 'class-transformer';
import { map, type Observable } from 'rxjs';
import { RequireScopes, RouteTool, Tool } from '../../src/index.js';

/** What the fixture's handlers and middleware saw, so tests can tell what ran and what reached the route. */
export const seen = {
  handled: [] as string[],
  headers: [] as Record<string, string | string[] | undefined>[],
  reset(): void {
    this.handled.length = 0;
    this.headers.length = 0;
  },
};

export class CreateOrderDto {
  @IsString()
  @IsNotEmpty()
  item!: string;

  @IsInt()
  @Min(1)
  quantity!: number;

  @IsOptional()
  @IsString()
  note?: string;
}

/** An existing backend's bearer guard: it reads the HTTP request's Authorization header, nothing of MCP. */
@Injectable()
export class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    if (request.headers.authorization !== 'Bearer reader') throw new UnauthorizedException('A reader token is needed');
    return true;
  }
}

@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((data: unknown) => ({ data, wrappedBy: 'EnvelopeInterceptor' })));
  }
}

@Controller('orders')
export class OrdersController {
  @Post()
  @RouteTool()
  create(@Body() order: CreateOrderDto): { id: number; item: string; quantity: number } {
    seen.handled.push('create');
    return { id: 7, item: order.item, quantity: order.quantity };
  }

  @Get(':id')
  @RouteTool({ description: 'One order by its number' })
  findOne(@Param('id', ParseIntPipe) id: number, @Query('expand') expand?: string): Record<string, unknown> {
    seen.handled.push('findOne');
    return { id, idType: typeof id, expand: expand ?? null };
  }

  @Get('private/report')
  @UseGuards(BearerGuard)
  @RequireScopes('orders:read')
  @RouteTool()
  report(@Headers() headers: Record<string, string | string[] | undefined>, @Ip() ip: string): Record<string, unknown> {
    seen.handled.push('report');
    seen.headers.push(headers);
    return { report: 'all good', ip };
  }

  @Get('wrapped/total')
  @UseInterceptors(EnvelopeInterceptor)
  @RouteTool()
  total(): { total: number } {
    return { total: 42 };
  }

  @Delete(':id')
  @RouteTool()
  remove(@Param('id') id: string): void {
    seen.handled.push(`remove ${id}`);
  }

  /** Not decorated: never a tool. */
  @Get('internal/audit')
  audit(): { audit: boolean } {
    return { audit: true };
  }

  @Get('text/greeting')
  @Header('content-type', 'text/plain; charset=utf-8')
  @RouteTool()
  greeting(): string {
    return 'hello from the route';
  }

  @Get('binary/logo')
  @RouteTool()
  logo(): StreamableFile {
    return new StreamableFile(Buffer.from([0x89, 0x50, 0x4e, 0x47]), { type: 'image/png' });
  }

  /** An event stream that never ends by itself. */
  @Get('events/feed')
  @RouteTool()
  feed(): StreamableFile {
    const stream = new PassThrough();
    stream.write('data: first\n\n');
    return new StreamableFile(stream, { type: 'text/event-stream' });
  }
}

export class ProductView {
  @ApiProperty({ description: 'Stock keeping unit' })
  sku!: string;

  @ApiProperty({ description: 'Display name' })
  name!: string;

  @ApiProperty({ required: false, description: 'Price in cents' })
  priceCents?: number;
}

@Controller('catalog')
export class CatalogController {
  @Get(':sku')
  @ApiOperation({ operationId: 'lookup_product', summary: 'Look up a product', description: 'By its SKU.' })
  @ApiParam({ name: 'sku', description: 'The product SKU' })
  @ApiQuery({ name: 'currency', required: false, enum: ['EUR', 'USD'] })
  @ApiOkResponse({ type: ProductView })
  @RouteTool()
  lookup(@Param('sku') sku: string, @Query('currency') currency?: string): ProductView {
    return { sku, name: `Widget ${currency ?? 'EUR'}`, priceCents: 1250 };
  }
}

/** A plain tool beside the routes: the bench compares the two. */
@Injectable()
export class PlainTools {
  @Tool({ name: 'plain_find_one', description: 'The same answer as orders_find_one, as a @Tool' })
  findOne(args: { id: number }): Record<string, unknown> {
    return { id: args.id, idType: typeof args.id, expand: null };
  }
}

/** Records the headers of every request the routes get, as an app's logging middleware would see them. */
function recordHeaders(req: { headers: Record<string, string | undefined> }, _res: unknown, next: () => void): void {
  if (req.headers['x-record'] !== undefined || req.headers['x-tenant-id'] !== undefined)
    seen.headers.push({ ...req.headers });
  next();
}

@Module({
  controllers: [OrdersController, CatalogController],
  providers: [PlainTools, { provide: APP_PIPE, useValue: new ValidationPipe({ whitelist: true }) }],
})
export class OrdersModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(recordHeaders).forRoutes('orders');
  }
}

export class ItemWithIdDto {
  @IsString()
  id!: string;

  @IsString()
  label!: string;
}

/** Path `id` and body `id`: a collision. */
@Controller('items')
export class CollidingController {
  @Put(':id')
  @RouteTool()
  replace(@Param('id') id: string, @Body() item: ItemWithIdDto): Record<string, string> {
    return { pathId: id, bodyId: item.id, label: item.label };
  }
}

/** The same route with the body's `id` renamed. */
@Controller('items')
export class RenamedController {
  @Put(':id')
  @RouteTool({ rename: { body: { id: 'item_id' } } })
  replace(@Param('id') id: string, @Body() item: ItemWithIdDto): Record<string, string> {
    return { pathId: id, bodyId: item.id, label: item.label };
  }
}

/** Every route a tool, by the module option: none carries @RouteTool. */
@Controller('stock')
export class StockController {
  @Get(':sku')
  level(@Param('sku') sku: string): { sku: string; level: number } {
    return { sku, level: 3 };
  }

  @Post(':sku/reserve')
  reserve(@Param('sku') sku: string, @Body('count') count: number): { sku: string; reserved: number } {
    return { sku, reserved: count };
  }

  /** Hidden from the API's documentation, so not listed either. */
  @Get('internal/recount')
  @ApiExcludeEndpoint()
  recount(): { recounted: boolean } {
    return { recounted: true };
  }
}

export class SearchQueryDto {
  @IsOptional()
  @IsString()
  term?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  limit?: number;
}

/** A whole-DTO query and an untyped body. */
@Controller('notes')
export class NotesController {
  @Get()
  @RouteTool()
  search(@Query() query: SearchQueryDto): Record<string, unknown> {
    return { term: query.term ?? null, limit: query.limit ?? null, limitType: typeof query.limit };
  }

  @Post()
  @RouteTool()
  add(@Body() note: Record<string, unknown>): Record<string, unknown> {
    return { stored: note };
  }
}

@Module({ controllers: [RenamedController] })
export class ItemsModule {}

/** A versioned controller: URI versioning puts `v2` in its path, header versioning a header on its request. */
@Controller({ path: 'levels', version: '2' })
export class VersionedController {
  @Get(':sku')
  @RouteTool({ name: 'level_v2' })
  level(@Param('sku') sku: string): { sku: string; version: string } {
    return { sku, version: '2' };
  }
}

/** A slow report, run as a task for clients that declare the tasks extension. */
@Controller('reports')
export class ReportsController {
  @Post()
  @RouteTool({ name: 'build_report', taskSupport: 'optional' })
  async build(@Body('rows') rows: number): Promise<{ rows: number; built: boolean }> {
    // Its query's round trip: the call outlasts the immediate-result window, so it becomes a task.
    await sleep(5);
    return { rows, built: true };
  }
}

/** A route that answers only when its connection closes: what a call's deadline must end. */
@Controller('slow')
export class HangingController {
  static closed: Promise<void>;
  private static markClosed: () => void;
  static reset(): void {
    HangingController.closed = new Promise((resolve) => (HangingController.markClosed = resolve));
  }

  @Get()
  @RouteTool({ name: 'hang' })
  hang(@Req() req: { raw?: IncomingMessage } & IncomingMessage): Promise<unknown> {
    return new Promise((resolve) =>
      (req.raw ?? req).socket.once('close', () => {
        HangingController.markClosed();
        resolve({});
      }),
    );
  }
}

/** A route tool named as the @Tool of PlainTools. */
@Controller('twins')
export class TwinController {
  @Get(':id')
  @RouteTool({ name: 'plain_find_one' })
  findOne(@Param('id') id: string): { id: string } {
    return { id };
  }
}
