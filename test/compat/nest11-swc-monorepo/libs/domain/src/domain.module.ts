import { Module } from '@nestjs/common';
import { CatalogService } from './catalog.service';
import { PricingTools } from './pricing.tools';

@Module({
  providers: [CatalogService, PricingTools],
  exports: [CatalogService],
})
export class DomainModule {}
