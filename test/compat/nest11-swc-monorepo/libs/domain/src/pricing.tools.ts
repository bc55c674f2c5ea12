import { Injectable } from '@nestjs/common';
import { Args, Tool } from 'nestjs-mcp';
import { CatalogService } from './catalog.service';

export type Delivery = 'standard' | 'express';

export interface Quote {
  /** The total to pay, in cents */
  total: number;
  delivery: Delivery;
}

// No schema written: nestjs-mcp/plugin derives it from the types and the JSDoc below, through the SWC builder's
// type check, although the class lives in a library and not under the app's source root.
@Injectable()
export class PricingTools {
  constructor(private readonly catalog: CatalogService) {}

  /**
   * Prices an order of a catalog item.
   * @param sku - the catalog code of the item
   * @param quantity - how many to order
   * @param delivery - how fast to deliver it
   */
  @Tool()
  quote(
    @Args('sku') sku: string,
    @Args('quantity') quantity: number,
    @Args('delivery') delivery: Delivery = 'standard',
  ): Quote {
    const total = this.catalog.price(sku) * quantity + (delivery === 'express' ? 900 : 0);
    return { total, delivery };
  }
}
