import { Injectable, NotFoundException } from '@nestjs/common';

const PRICES: Record<string, number> = { 'tea-01': 450, 'mug-02': 1200 };

@Injectable()
export class CatalogService {
  /** The unit price of an item, in cents. */
  price(sku: string): number {
    const price = PRICES[sku];
    if (price === undefined) throw new NotFoundException(`No item ${sku} in the catalog`);
    return price;
  }
}
