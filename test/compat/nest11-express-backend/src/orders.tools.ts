import { Injectable, UseGuards } from '@nestjs/common';
import { Throttle, ThrottlerGuard } from '@nestjs/throttler';
import { Args, McpContext, McpCtx, Tool } from 'nestjs-mcp';
import { z } from 'zod';
import { OrdersService } from './orders.service';

const CreateOrder = z.object({
  customer: z.string().min(1),
  item: z.string().min(1),
  quantity: z.number().int().positive(),
});

// The app's global ThrottlerGuard counts MCP requests at the route; on the tools' class it counts each tool, as
// for a REST route with the same decorators.
@Injectable()
@UseGuards(ThrottlerGuard)
export class OrdersTools {
  constructor(private readonly orders: OrdersService) {}

  @Tool({ name: 'create_order', description: 'Places an order', inputSchema: CreateOrder })
  create(@Args() args: z.infer<typeof CreateOrder>) {
    return this.orders.create(args);
  }

  @Tool({ name: 'get_order', description: 'Reads an order', inputSchema: z.object({ id: z.string() }) })
  get(@Args('id') id: string) {
    return this.orders.get(id);
  }

  @Tool({ name: 'whoami', description: 'Who the app says is calling' })
  whoami(@McpCtx() ctx: McpContext) {
    return { user: (ctx.httpRequest as { user?: unknown } | undefined)?.user ?? null };
  }

  @Throttle({ default: { limit: 2, ttl: 60_000 } })
  @Tool({
    name: 'quote',
    description: 'A price quote, limited to two a minute',
    inputSchema: z.object({ item: z.string() }),
  })
  quote(@Args('item') item: string) {
    return `${item}: 9.99`;
  }
}
