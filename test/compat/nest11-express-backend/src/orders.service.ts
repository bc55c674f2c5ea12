import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Order } from './order.entity';

@Injectable()
export class OrdersService {
  constructor(@InjectRepository(Order) private readonly orders: Repository<Order>) {}

  // What most services do: hand the validated input to the repository as it is.
  create(input: Partial<Order>): Promise<Order> {
    return this.orders.save(this.orders.create(input));
  }

  async get(id: string): Promise<Order> {
    const order = await this.orders.findOneBy({ id });
    if (!order) throw new NotFoundException(`Order ${id} not found`);
    return order;
  }

  list(): Promise<Order[]> {
    return this.orders.find({ order: { customer: 'ASC' } });
  }
}
