import { Injectable, Module } from '@nestjs/common';
import { Prompt, Tool } from '../../src/index.js';

/** Two feature modules, each with its own decorated tools, for apps with two MCP servers. */
@Injectable()
export class BillingTools {
  @Tool({ name: 'invoice', description: 'Billing' })
  invoice(): string {
    return 'invoice';
  }
}

@Injectable()
export class SupportTools {
  @Tool({ name: 'ticket', description: 'Support' })
  ticket(): string {
    return 'ticket';
  }

  @Prompt({ name: 'triage', description: 'Support prompt' })
  triage(): string {
    return 'triage this';
  }
}

@Module({ providers: [BillingTools] })
export class BillingModule {}

@Module({ providers: [SupportTools] })
export class SupportModule {}
