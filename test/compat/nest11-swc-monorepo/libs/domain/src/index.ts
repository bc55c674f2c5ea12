export * from './domain.module';
export * from './catalog.service';
export * from './pricing.tools';
