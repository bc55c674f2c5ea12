import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { bootstrapStdio, McpModule } from '../../src/index.js';
import { BillingModule, SupportModule } from './billing-support.modules.js';

/**
 * An app with two MCP servers, served over stdio: the one STDIO_SERVER names, else the default (billing). The
 * named server is imported first, where resolving "the" kernel would find it before the default one. A start-up
 * failure goes to stderr as `name: message` and exits 1.
 */
@Module({
  imports: [
    McpModule.forRoot({ name: 'support', version: '1.0.0', include: [SupportModule], isDefault: false }),
    McpModule.forRoot({ name: 'billing', version: '1.0.0', include: [BillingModule] }),
    BillingModule,
    SupportModule,
  ],
})
class TwoServersModule {}

bootstrapStdio(TwoServersModule, { server: process.env.STDIO_SERVER }).catch((error: Error) => {
  process.stderr.write(`${error.name}: ${error.message}\n`);
  process.exit(1);
});
