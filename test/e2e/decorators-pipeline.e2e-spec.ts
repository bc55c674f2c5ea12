import 'reflect-metadata';
import {
  Catch,
  Inject,
  Injectable,
  Module,
  NotFoundException,
  ParseIntPipe,
  Scope,
  SetMetadata,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
  ValidationPipe,
  createParamDecorator,
  type CallHandler,
  type CanActivate,
  type ExceptionFilter,
  type ArgumentsHost,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
  type PipeTransform,
} from '@nestjs/common';
import { Reflector, REQUEST } from '@nestjs/core';
import { IsInt, IsString, Min } from 'class-validator';
import { map, type Observable } from 'rxjs';
import { Args, McpContext, McpCtx, McpExecutionContext, McpModule, Tool } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpHeaders, mcpMessage } from '../../src/testing/index.js';

/** An ordinary HTTP guard, as an existing backend has it: it reads the HTTP request. */
@Injectable()
class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    return request.headers['x-api-key'] === 'open-sesame';
  }
}

const Roles = (...roles: string[]) => SetMetadata('roles', roles);

/** A guard that reads handler metadata through Reflector and the MCP context. */
@Injectable()
class ClientRoleGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.get<string[]>('roles', context.getHandler()) ?? [];
    const mcp = McpExecutionContext.create(context);
    return context.getType<string>() === 'mcp' && roles.includes(mcp.getContext().clientInfo?.name ?? '');
  }
}

@Injectable()
class ShoutInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const tool = McpExecutionContext.create(context).getArgs<{ text: string }>();
    return next
      .handle()
      .pipe(map((value) => `${String(value).toUpperCase()}! (${context.getType()}, ${tool.text.length})`));
  }
}

@Injectable()
class TrimPipe implements PipeTransform {
  transform(value: unknown): unknown {
    return typeof value === 'string' ? value.trim() : value;
  }
}

@Catch(NotFoundException)
class NotFoundAsResult implements ExceptionFilter {
  catch(exception: NotFoundException, host: ArgumentsHost): unknown {
    return {
      isError: true,
      content: [{ type: 'text', text: `Nothing here (${host.getType()}): ${exception.message}` }],
    };
  }
}

/** A catch-all filter must not swallow the kernel's signals (InputRequired). */
@Catch()
class CatchAll implements ExceptionFilter {
  catch(): unknown {
    return 'caught';
  }
}

class TransferDto {
  @IsString()
  to!: string;

  @IsInt()
  @Min(1)
  amount!: number;
}

@Injectable()
class PipelineTools {
  @Tool({ name: 'vault', description: 'Needs an API key', hideWhenDenied: true })
  @UseGuards(ApiKeyGuard)
  vault(): string {
    return 'gold';
  }

  @Tool({ name: 'door', description: 'Needs an API key, but stays listed' })
  @UseGuards(ApiKeyGuard)
  door(): string {
    return 'open';
  }

  @Tool({ name: 'vip', description: 'Only for the test client', hideWhenDenied: true })
  @Roles('test-client')
  @UseGuards(ClientRoleGuard)
  vip(): string {
    return 'welcome';
  }

  @Tool({
    name: 'shout',
    description: 'Interceptor transforms the result',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  })
  @UseInterceptors(ShoutInterceptor)
  shout(@Args('text') text: string): string {
    return text;
  }

  @Tool({
    name: 'trim',
    description: 'Parameter pipes',
    inputSchema: { type: 'object', properties: { text: { type: 'string' }, count: { type: 'string' } } },
  })
  trim(@Args('text', TrimPipe) text: string, @Args('count', ParseIntPipe) count: number): string {
    return `[${text}] ${typeof count} ${count + 1}`;
  }

  @Tool({
    name: 'transfer',
    description: 'ValidationPipe turns the arguments into a DTO instance',
    inputSchema: TransferDto,
  })
  @UsePipes(new ValidationPipe({ transform: true }))
  transfer(@Args() dto: TransferDto): string {
    return `${dto instanceof TransferDto} ${dto.amount} to ${dto.to}`;
  }

  @Tool({
    name: 'find',
    description: 'Exception filter',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
  })
  @UseFilters(NotFoundAsResult)
  find(@Args('id') id: string): string {
    if (id !== '1') throw new NotFoundException(`no item ${id}`);
    return 'item 1';
  }

  @Tool({ name: 'unfiltered', description: 'HttpException without a filter' })
  unfiltered(): string {
    throw new NotFoundException('gone');
  }

  @Tool({ name: 'confirm', description: 'Elicits through a catch-all filter' })
  @UseFilters(CatchAll)
  async confirm(@McpCtx() ctx: McpContext): Promise<string> {
    const answer = await ctx.elicit('Sure?', { type: 'object', properties: { ok: { type: 'boolean' } } });
    return `answer: ${answer.action}`;
  }
}

/** An ordinary Nest custom parameter decorator reading the HTTP request. */
const ApiKey = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext) => ctx.switchToHttp().getRequest().headers['x-api-key'],
);

@Injectable()
class CustomParamTools {
  @Tool({
    name: 'key_echo',
    description: 'Custom parameter decorator',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  })
  keyEcho(@ApiKey() key: string, @Args('n') n: number): string {
    return `${key}:${n}`;
  }
}

let created = 0;

@Injectable({ scope: Scope.REQUEST })
class RequestScopedTools {
  private readonly serial = ++created;

  constructor(
    @Inject(REQUEST) private readonly request: { headers: Record<string, string | undefined>; method: string },
  ) {}

  @Tool({ name: 'whoami', description: 'Reads the HTTP request injected as REQUEST' })
  whoami(@McpCtx() ctx: McpContext): string {
    return `${this.request.method} ${this.request.headers['x-trace']} #${this.serial} same=${ctx.httpRequest === this.request}`;
  }
}

@Module({ providers: [PipelineTools, ApiKeyGuard, RequestScopedTools, CustomParamTools] })
class PipelineModule {}

describe('Nest pipeline on decorated tools', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'pipeline', version: '1.0.0' }), PipelineModule]);
  });
  afterAll(() => app.close());

  const text = (res: { body: { result: { content: Array<{ text: string }> } } }) => res.body.result.content[0].text;
  const listNames = async (headers: Record<string, string> = {}, clientName = 'test-client') => {
    const body = mcpMessage(
      'tools/list',
      {},
      { meta: { 'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1' } } },
    );
    const res = await createMcpTestClient(app).post(body, headers);
    expect(res.status).toBe(200);
    return { names: res.body.result.tools.map((t: { name: string }) => t.name) as string[], result: res.body.result };
  };

  it('runs an HTTP guard that reads the HTTP request: allow and deny (an isError result, not a 500)', async () => {
    const body = mcpMessage('tools/call', { name: 'door', arguments: {} });
    const allowed = await createMcpTestClient(app).post(body, { 'x-api-key': 'open-sesame' });
    expect(allowed.status).toBe(200);
    expect(text(allowed)).toBe('open');
    const denied = await createMcpTestClient(app).post(body, { 'x-api-key': 'wrong' });
    expect(denied.status).toBe(200);
    expect(denied.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error: Forbidden resource' }],
    });
  });

  it('answers a call to a tool hidden from the caller as for a tool that does not exist', async () => {
    const body = mcpMessage('tools/call', { name: 'vault', arguments: {} });
    expect(text(await createMcpTestClient(app).post(body, { 'x-api-key': 'open-sesame' }))).toBe('gold');
    const denied = await createMcpTestClient(app).post(body, { 'x-api-key': 'wrong' });
    const unknown = await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'nothing', arguments: {} }));
    expect(denied.status).toBe(200);
    expect(denied.body.result).toEqual(unknown.body.result);
    expect(denied.body.result.content).toEqual([{ type: 'text', text: 'Tool not found' }]);
  });

  it('hides a denied tool from tools/list for that request only, when the tool opts in', async () => {
    const anonymous = await listNames();
    expect(anonymous.names).not.toContain('vault');
    expect(anonymous.names).toContain('door');
    expect(anonymous.result.cacheScope).toBe('private');
    const withKey = await listNames({ 'x-api-key': 'open-sesame' });
    expect(withKey.names).toContain('vault');
    expect(withKey.names).toContain('door');
  });

  it('applies guards that read handler metadata with Reflector, when listing and when calling', async () => {
    expect((await listNames({}, 'test-client')).names).toContain('vip');
    expect((await listNames({}, 'someone-else')).names).not.toContain('vip');
    const welcomed = await createMcpTestClient(app).post(
      mcpMessage(
        'tools/call',
        { name: 'vip', arguments: {} },
        { clientInfo: { name: 'test-client', version: '1.0.0' } },
      ),
    );
    expect(welcomed.status).toBe(200);
    expect(text(welcomed)).toBe('welcome');
    const other = mcpMessage(
      'tools/call',
      { name: 'vip', arguments: {} },
      { meta: { 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' } } },
    );
    const reply2 = await createMcpTestClient(app).post(other);
    expect(reply2.status).toBe(200);
    expect(reply2.body.result.isError).toBe(true);
  });

  it('runs an interceptor that transforms the result, with the MCP execution context', async () => {
    const reply3 = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'shout', arguments: { text: 'hello' } }),
    );
    expect(reply3.status).toBe(200);
    expect(text(reply3)).toBe('HELLO! (mcp, 5)');
  });

  it('runs parameter pipes', async () => {
    const reply4 = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'trim', arguments: { text: '  padded  ', count: '41' } }),
    );
    expect(reply4.status).toBe(200);
    expect(text(reply4)).toBe('[padded] number 42');
    const bad = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'trim', arguments: { text: 'x', count: 'many' } }),
    );
    expect(bad.status).toBe(200);
    expect(bad.body.result).toMatchObject({
      isError: true,
      content: [{ text: 'Error: Validation failed (numeric string is expected)' }],
    });
  });

  it('supports Nest custom parameter decorators next to @Args()', async () => {
    const body = mcpMessage('tools/call', { name: 'key_echo', arguments: { n: 7 } });
    const reply5 = await createMcpTestClient(app).post(body, { 'x-api-key': 'k1' });
    expect(reply5.status).toBe(200);
    expect(text(reply5)).toBe('k1:7');
  });

  it('runs ValidationPipe with the DTO as metatype', async () => {
    const reply6 = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'transfer', arguments: { to: 'bob', amount: 5 } }),
    );
    expect(reply6.status).toBe(200);
    expect(text(reply6)).toBe('true 5 to bob');
  });

  it('runs an exception filter, whose value becomes the result', async () => {
    const reply7 = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'find', arguments: { id: '1' } }),
    );
    expect(reply7.status).toBe(200);
    expect(text(reply7)).toBe('item 1');
    const missing = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'find', arguments: { id: '7' } }),
    );
    expect(missing.status).toBe(200);
    expect(missing.body.result).toMatchObject({ isError: true, content: [{ text: 'Nothing here (mcp): no item 7' }] });
  });

  it('turns an unfiltered HttpException into an error result', async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'unfiltered', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ isError: true, content: [{ text: 'Error: gone' }] });
  });

  it('keeps input_required working through a catch-all exception filter', async () => {
    const caps = { elicitation: { form: {} } };
    const first = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'confirm', arguments: {} }, { clientCapabilities: caps }),
    );
    expect(first.status).toBe(200);
    expect(first.body.result.resultType).toBe('input_required');
    const key = Object.keys(first.body.result.inputRequests)[0];
    const second = await createMcpTestClient(app).post(
      mcpMessage(
        'tools/call',
        {
          name: 'confirm',
          arguments: {},
          requestState: first.body.result.requestState,
          inputResponses: { [key]: { action: 'decline' } },
        },
        { clientCapabilities: caps },
      ),
    );
    expect(second.status).toBe(200);
    expect(text(second)).toBe('answer: decline');
  });

  it('gives a request-scoped provider a fresh instance per call, with the real HTTP request as REQUEST', async () => {
    const call = async (trace: string) => {
      const body = mcpMessage('tools/call', { name: 'whoami', arguments: {} });
      const res = await createMcpTestClient(app).post(body, { ...mcpHeaders(body), 'x-trace': trace });
      expect(res.status).toBe(200);
      return res;
    };
    const first = text(await call('a'));
    const second = text(await call('b'));
    expect(first).toMatch(/^POST a #\d+ same=true$/);
    expect(second).toMatch(/^POST b #\d+ same=true$/);
    expect(first.split('#')[1]).not.toBe(second.split('#')[1]);
  });
});
