import { Controller, Get, Param } from '@nestjs/common';
import { CatalogService } from '@app/domain';

@Controller('catalog')
export class AppController {
  constructor(private readonly catalog: CatalogService) {}

  @Get(':sku')
  item(@Param('sku') sku: string) {
    return { sku, price: this.catalog.price(sku) };
  }
}
