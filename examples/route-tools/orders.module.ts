import {
  Body,
  Controller,
  Get,
  Injectable,
  Module,
  NotFoundException,
  Param,
  ParseIntPipe,
  Post,
  Query,
  UnauthorizedException,
  UseGuards,
  ValidationPipe,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Min } from 'class-validator';
import { McpModule, RouteTool } from '../../src/index.js';

export class CreateOrderDto {
  @IsString()
  item!: string;

  @IsInt()
  @Min(1)
  quantity!: number;
}

export class OrderView {
  @ApiProperty() id!: number;
  @ApiProperty() item!: string;
  @ApiProperty() quantity!: number;
}

/** The backend's own guard: it reads the HTTP request, and knows nothing of MCP. */
@Injectable()
export class ApiTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { headers } = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    if (headers.authorization !== 'Bearer demo-token') throw new UnauthorizedException('Unknown API token');
    return true;
  }
}

@Controller('orders')
@UseGuards(ApiTokenGuard)
export class OrdersController {
  private readonly orders: OrderView[] = [{ id: 1, item: 'tea', quantity: 2 }];

  @Get(':id')
  @ApiOperation({ operationId: 'get_order', summary: 'One order by its number' })
  @ApiOkResponse({ type: OrderView })
  @RouteTool()
  findOne(@Param('id', ParseIntPipe) id: number, @Query('currency') currency?: string): OrderView {
    const order = this.orders.find((o) => o.id === id);
    if (!order) throw new NotFoundException(`Order ${id} does not exist${currency ? ` (${currency})` : ''}`);
    return order;
  }

  @Post()
  @ApiOperation({ operationId: 'create_order', summary: 'Places an order' })
  @RouteTool()
  create(@Body() order: CreateOrderDto): OrderView {
    const created = { id: this.orders.length + 1, ...order };
    this.orders.push(created);
    return created;
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'orders', version: '1.0.0' })],
  controllers: [OrdersController],
  providers: [{ provide: APP_PIPE, useValue: new ValidationPipe() }],
})
export class OrdersModule {}
