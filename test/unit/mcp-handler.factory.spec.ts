import 'reflect-metadata';
import {
  ForbiddenException,
  Inject,
  Injectable,
  Module,
  NotFoundException,
  Scope,
  UseGuards,
  type LoggerService,
} from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { Test, type TestingModule } from '@nestjs/testing';
import { Args, ErrorCode, type McpContext } from '../../src/index.js';
import type { McpArgumentsHost } from '../../src/nest/pipeline/mcp-arguments-host.js';
import { MCP_LOGGER } from '../../src/nest/mcp.constants.js';
import { McpHandlerFactory } from '../../src/nest/pipeline/mcp-handler.factory.js';

const LABEL = Symbol('LABEL');

@Injectable()
class Deny {
  canActivate(): boolean {
    return false;
  }
}

@Injectable()
class Forbid {
  canActivate(): boolean {
    throw new ForbiddenException('no');
  }
}

@Injectable()
class Outage {
  canActivate(): boolean {
    throw new Error('store down');
  }
}

@Injectable()
class Tools {
  echo(@Args('text') text: string): string {
    return text;
  }

  refuse(): never {
    throw new ForbiddenException('not for you');
  }

  missing(): never {
    throw new NotFoundException('no such order');
  }

  @UseGuards(Deny)
  denied(): string {
    return 'never';
  }

  @UseGuards(Forbid)
  forbidden(): string {
    return 'never';
  }

  @UseGuards(Outage)
  broken(): string {
    return 'never';
  }
}

/** The same class, request-scoped, in two modules that each give it their own label. */
@Injectable({ scope: Scope.REQUEST })
class Labelled {
  constructor(@Inject(LABEL) private readonly label: string) {}

  which(): string {
    return this.label;
  }
}

@Module({ providers: [Labelled, { provide: LABEL, useValue: 'first' }] })
class FirstModule {}

@Module({ providers: [Labelled, { provide: LABEL, useValue: 'second' }] })
class SecondModule {}

const hostWith = (args: unknown, httpRequest: object = {}, uri?: string): McpArgumentsHost => [
  httpRequest,
  undefined,
  { httpRequest, inputResponses: {} } as unknown as McpContext,
  args,
  uri,
  {},
];

describe('McpHandlerFactory', () => {
  let moduleRef: TestingModule;
  let factory: McpHandlerFactory;
  const errors: unknown[][] = [];
  const logger: LoggerService = { log: () => {}, warn: () => {}, error: (...args: unknown[]) => errors.push(args) };

  const wrapperOf = (type: Function, host?: Function): InstanceWrapper => {
    const found = moduleRef
      .get(DiscoveryService)
      .getProviders()
      .find((w) => w.metatype === type && (!host || w.host?.metatype === host));
    if (!found) throw new Error(`no provider ${type.name}`);
    return found;
  };

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [DiscoveryModule, FirstModule, SecondModule],
      providers: [McpHandlerFactory, Tools, Deny, Forbid, Outage, { provide: MCP_LOGGER, useValue: logger }],
    }).compile();
    await moduleRef.init();
    factory = moduleRef.get(McpHandlerFactory);
  });
  afterAll(() => moduleRef.close());
  beforeEach(() => errors.splice(0));

  it('calls an enhancer-free method directly with its parameters picked from the host', async () => {
    const handler = factory.createReader(wrapperOf(Tools), 'echo', 'prompt');
    expect(await handler(hostWith({ text: 'hi' }))).toBe('hi');
  });

  it('turns an HttpException into a tool error result for a tool, and into the fitting protocol error for a resource or prompt', async () => {
    const asTool = factory.createTool(wrapperOf(Tools), 'refuse');
    expect(await asTool(hostWith({}))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: not for you' }],
    });
    // A synchronous method's refusal is thrown as it happens; the kernel calls readers inside async functions.
    const asPrompt = factory.createReader(wrapperOf(Tools), 'refuse', 'prompt');
    await expect((async () => asPrompt(hostWith({})))()).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: 'Error: not for you',
    });
    const missing = factory.createReader(wrapperOf(Tools), 'missing', 'resource');
    await expect((async () => missing(hostWith({}, {}, 'orders://7')))()).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: 'Resource not found: orders://7',
      data: { uri: 'orders://7' },
    });
  });

  it('reports which methods have guards', () => {
    expect(factory.hasGuards(wrapperOf(Tools), 'denied')).toBe(true);
    expect(factory.hasGuards(wrapperOf(Tools), 'echo')).toBe(false);
  });

  it('guard check: a denying guard hides quietly, a throwing HttpException hides quietly, any other error hides and is logged', async () => {
    const context = hostWith(undefined)[2];
    expect(await factory.createGuardCheck(wrapperOf(Tools), 'denied', 'denied')(context)).toBe(false);
    expect(await factory.createGuardCheck(wrapperOf(Tools), 'forbidden', 'forbidden')(context)).toBe(false);
    expect(errors).toHaveLength(0);
    expect(await factory.createGuardCheck(wrapperOf(Tools), 'broken', 'tool "broken"')(context)).toBe(false);
    expect(errors).toHaveLength(1);
    expect(errors[0][0]).toContain('tool "broken"');
    expect(String(errors[0][1])).toContain('store down');
  });

  it('resolves a request-scoped provider per call within its own module, not another module with the same class', async () => {
    const first = factory.createReader(wrapperOf(Labelled, FirstModule), 'which', 'prompt');
    const second = factory.createReader(wrapperOf(Labelled, SecondModule), 'which', 'prompt');
    expect(await first(hostWith({}, {}))).toBe('first');
    expect(await second(hostWith({}, {}))).toBe('second');
  });
});
