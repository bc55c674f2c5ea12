import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { CreateOrderDto } from './create-order.dto';
import { OrdersService } from './orders.service';
import { Public } from './public.decorator';

@Controller()
export class AppController {
  constructor(
    private readonly jwt: JwtService,
    private readonly orders: OrdersService,
  ) {}

  @Public()
  @Get()
  getHello(): string {
    return 'Hello World!';
  }

  @Public()
  @Post('auth/login')
  login(@Body() body: { username: string }) {
    return { access_token: this.jwt.sign({ sub: body.username, username: body.username }) };
  }

  @Post('orders')
  create(@Body() dto: CreateOrderDto) {
    return this.orders.create(dto);
  }

  @Get('orders/:id')
  get(@Param('id') id: string) {
    return this.orders.get(id);
  }
}
