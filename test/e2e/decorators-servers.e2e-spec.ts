import 'reflect-metadata';
import {
  ForbiddenException,
  Injectable,
  Module,
  UseGuards,
  type INestApplication,
  type LoggerService,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpConfigurationError, McpModule, McpRegistrationError, MCPServer, Tool } from '../../src/index.js';
import { BillingModule, SupportModule } from '../support/billing-support.modules.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';

@Injectable()
class OtherInvoiceTools {
  @Tool({ name: 'invoice', description: 'Clashes with BillingTools.invoice' })
  makeInvoice(): string {
    return 'other';
  }
}

@Module({ providers: [OtherInvoiceTools] })
class ClashingModule {}

@Injectable()
class BadNameTools {
  @Tool({ name: 'no spaces allowed', description: 'Invalid name' })
  bad(): string {
    return '';
  }
}

@Module({ providers: [BadNameTools] })
class BadNameModule {}

describe('Several MCP servers in one app', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRoot({ name: 'billing', version: '1.0.0', include: [BillingModule], path: '/billing/mcp' }),
      McpModule.forRoot({
        name: 'support',
        version: '1.0.0',
        include: [SupportModule],
        path: '/support/mcp',
        isDefault: false,
      }),
      BillingModule,
      SupportModule,
    ]);
  });
  afterAll(() => app.close());

  const client = (path: string) => createMcpTestClient(app, { path });

  it('gives each server only the tools of the modules it includes', async () => {
    const billing = await client('/billing/mcp').listTools();
    const support = await client('/support/mcp').listTools();
    expect(billing.result?.tools.map((t) => t.name)).toEqual(['invoice']);
    expect((billing.result as any)._meta['io.modelcontextprotocol/serverInfo'].name).toBe('billing');
    expect(support.result?.tools.map((t) => t.name)).toEqual(['ticket']);
    expect((support.result as any)._meta['io.modelcontextprotocol/serverInfo'].name).toBe('support');
  });

  it("does not serve another server's tools or prompts", async () => {
    const call = await client('/billing/mcp').callTool('ticket');
    expect(call.status).toBe(200);
    expect(call.result).toMatchObject({ isError: true, content: [{ text: 'Tool not found' }] });
    expect((await client('/support/mcp').listPrompts()).result?.prompts).toEqual([
      { name: 'triage', description: 'Support prompt' },
    ]);
    const none = await client('/billing/mcp').listPrompts();
    expect(none.error?.code).toBe(-32601);
  });
});

@Injectable()
class DenyAll {
  canActivate(): boolean {
    return false;
  }
}

@Injectable()
class LockedTools {
  @Tool({ name: 'locked', description: 'Always denied' })
  @UseGuards(DenyAll)
  locked(): string {
    return 'never';
  }

  @Tool({ name: 'listed', description: 'Denied, but opts out of hiding', hideWhenDenied: false })
  @UseGuards(DenyAll)
  listed(): string {
    return 'never';
  }

  @Tool({ name: 'open', description: 'No guard' })
  open(): string {
    return 'open';
  }
}

@Module({ providers: [LockedTools] })
class LockedModule {}

describe('The hideForbidden module option (tools its guards deny)', () => {
  it('hides every denied tool unless the tool opts out', async () => {
    const app = await createApp([
      McpModule.forRoot({ name: 'locked', version: '1.0.0', hideForbidden: true }),
      LockedModule,
    ]);
    try {
      const res = await createMcpTestClient(app).listTools();
      expect(res.result?.tools.map((t) => t.name)).toEqual(['listed', 'open']);
    } finally {
      await app.close();
    }
  });
});

@Injectable()
class OutageGuard {
  canActivate(): boolean {
    throw new Error('permission store unreachable');
  }
}

@Injectable()
class ForbidGuard {
  canActivate(): boolean {
    throw new ForbiddenException('not yours');
  }
}

@Injectable()
class FragileTools {
  @Tool({ name: 'fragile', description: 'Its guard fails', hideWhenDenied: true })
  @UseGuards(OutageGuard)
  fragile(): string {
    return 'never';
  }

  @Tool({ name: 'forbidden', description: 'Its guard denies by throwing', hideWhenDenied: true })
  @UseGuards(ForbidGuard)
  forbidden(): string {
    return 'never';
  }

  @Tool({ name: 'open', description: 'No guard' })
  open(): string {
    return 'open';
  }
}

@Module({ providers: [FragileTools] })
class FragileModule {}

describe('A visibility guard that throws', () => {
  it('hides the tool and logs why through the MCPServer logger, once per list; a guard denying with an HttpException is not logged', async () => {
    const errors: Array<{ message: unknown; trace: unknown; context: unknown }> = [];
    const logger: LoggerService = {
      log: () => {},
      warn: () => {},
      error: (message, trace, context) => errors.push({ message, trace, context }),
    };
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'fragile', version: '1.0.0' }), FragileModule],
    }).compile();
    const app = moduleRef.createNestApplication({ logger });
    await app.init();
    try {
      const res = await createMcpTestClient(app).listTools();
      expect(res.result?.tools.map((t) => t.name)).toEqual(['open']);
      expect(errors).toHaveLength(1);
      expect(errors[0].message).toBe(
        'A guard of tool "fragile" threw while deciding whether the caller sees it; it is hidden from this request',
      );
      expect(String(errors[0].trace)).toContain('permission store unreachable');
      expect(errors[0].context).toBe('MCPServer');
    } finally {
      await app.close();
    }
  });
});

describe('Start-up checks of decorated tools', () => {
  it('wraps what the registry rejected in an McpRegistrationError that keeps it as cause', async () => {
    const error = await createApp([McpModule.forRoot({ name: 'bad', version: '1.0.0' }), BadNameModule]).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpRegistrationError);
    expect((error as McpRegistrationError).place).toBe('BadNameTools.bad');
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(((error as Error).cause as Error).message).toBe(
      'Invalid tool name "no spaces allowed": use 1-128 characters from [A-Za-z0-9_.-]',
    );
  });

  it('reports a duplicate as a configuration error', async () => {
    await expect(
      createApp([McpModule.forRoot({ name: 'dup', version: '1.0.0' }), BillingModule, ClashingModule]),
    ).rejects.toBeInstanceOf(McpConfigurationError);
  });

  it('fails on a duplicate tool name, naming both places', async () => {
    await expect(
      createApp([McpModule.forRoot({ name: 'dup', version: '1.0.0' }), BillingModule, ClashingModule]),
    ).rejects.toThrow(
      'Duplicate MCP tool "invoice": declared by BillingTools.invoice and by OtherInvoiceTools.makeInvoice',
    );
  });

  it('fails on a name already taken through MCPServer, naming the method', async () => {
    @Injectable()
    class RegistersEarly {
      constructor(server: MCPServer) {
        server.registerTool('invoice', 'Registered at run time', { type: 'object' }, () => 'early');
      }
    }
    await expect(
      createApp([McpModule.forRoot({ name: 'dup', version: '1.0.0' }), BillingModule], [RegistersEarly]),
    ).rejects.toThrow('BillingTools.invoice: Tool "invoice" is already registered; tool names must be unique');
  });

  it('fails on an invalid tool name, naming the method', async () => {
    await expect(createApp([McpModule.forRoot({ name: 'bad', version: '1.0.0' }), BadNameModule])).rejects.toThrow(
      'BadNameTools.bad: Invalid tool name "no spaces allowed": use 1-128 characters from [A-Za-z0-9_.-]',
    );
  });
});
