import 'reflect-metadata';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MinLength, ValidateNested } from 'class-validator';
import { z } from 'zod';
import {
  Args,
  InputResponses,
  McpContext,
  McpCtx,
  McpModule,
  MCPServer,
  Prompt,
  Resource,
  ResourceTemplate,
  ResourceUri,
  Tool,
} from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';

class AddressDto {
  @IsString()
  @MinLength(2)
  city!: string;
}

class BookingDto {
  @IsString()
  @MinLength(1)
  guest!: string;

  @IsInt()
  @Max(10)
  nights!: number;

  @IsOptional()
  @IsString()
  note?: string;

  @ValidateNested()
  @Type(() => AddressDto)
  address!: AddressDto;
}

const Coordinates = z.object({ lat: z.number().min(-90).max(90), lon: z.number().min(-180).max(180) });

const conditionalSchema = {
  type: 'object',
  $defs: { unit: { enum: ['c', 'f'] } },
  properties: { kind: { type: 'string' }, unit: { $ref: '#/$defs/unit' } },
  required: ['kind'],
  if: { properties: { kind: { const: 'temperature' } } },
  then: { required: ['unit'] },
};

@Injectable()
class GreetingService {
  greet(name: string): string {
    return `Hello, ${name}!`;
  }
}

@Injectable()
class GreetingTools {
  constructor(private readonly greetings: GreetingService) {}

  @Tool({
    name: 'greet',
    description: 'Greets someone',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    annotations: { readOnlyHint: true },
  })
  greet(@Args('name') name: string): string {
    return this.greetings.greet(name);
  }

  @Tool({ name: 'measure', description: 'JSON Schema with $defs, $ref and if/then', inputSchema: conditionalSchema })
  measure(@Args() args: { kind: string; unit?: string }): string {
    return `${args.kind}:${args.unit ?? '-'}`;
  }

  @Tool({ description: 'A tool named after its method, without parameter decorators' })
  plain(args: unknown, inputResponses: unknown, ctx: McpContext): string {
    return `${JSON.stringify(args)} ${JSON.stringify(inputResponses)} ${ctx instanceof McpContext}`;
  }
}

@Injectable()
class BookingTools {
  @Tool({ name: 'book', description: 'DTO schema', inputSchema: BookingDto })
  book(@Args() booking: BookingDto, @McpCtx() ctx: McpContext, @InputResponses() answers: InputResponses): string {
    return `${booking.guest} x${booking.nights} in ${booking.address.city} (${ctx.clientInfo?.name}, ${Object.keys(answers).length})`;
  }

  @Tool({
    name: 'locate',
    description: 'zod schemas in and out',
    inputSchema: z.object({ place: z.string().min(1) }),
    outputSchema: Coordinates,
  })
  locate(@Args('place') place: string): z.infer<typeof Coordinates> {
    return place === 'nowhere' ? { lat: 500, lon: 0 } : { lat: 48.85, lon: 2.35 };
  }

  @Tool({
    name: 'stats',
    description: 'JSON Schema outputSchema',
    inputSchema: { type: 'object', properties: { broken: { type: 'boolean' } } },
    outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
  })
  stats(@Args('broken') broken?: boolean): unknown {
    return broken ? { count: 'many' } : { count: 3 };
  }
}

@Injectable()
class DocsProvider {
  private readonly cities = ['Paris', 'Perth', 'Lima'];

  @Resource({ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown' })
  readme(): string {
    return '# Readme';
  }

  @ResourceTemplate({ uriTemplate: 'weather://{city}', name: 'city-weather', complete: { city: 'completeCity' } })
  cityWeather(@Args('city') city: string, @ResourceUri() uri: string): string {
    return `${uri} -> ${city}`;
  }

  completeCity(value: string): string[] {
    return this.cities.filter((c) => c.toLowerCase().startsWith(value.toLowerCase()));
  }

  @Prompt({
    name: 'haiku',
    description: 'A haiku prompt',
    arguments: [{ name: 'topic', required: true }],
    complete: { topic: (v) => [`${v}-sea`] },
  })
  haiku(@Args('topic') topic: string): string {
    return `Write a haiku about ${topic}`;
  }

  @Prompt({ description: 'A prompt named after its method' })
  limerick(): string {
    return 'Write a limerick';
  }
}

@Module({ providers: [GreetingService, GreetingTools] })
class GreetingModule {}

@Module({ providers: [BookingTools] })
class BookingModule {}

@Module({ providers: [DocsProvider] })
class DocsModule {}

describe('Decorated tools, resources and prompts', () => {
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRoot({ name: 'decorated', version: '1.0.0' }),
      GreetingModule,
      BookingModule,
      DocsModule,
    ]);
    mcp = createMcpTestClient(app);
  });
  afterAll(() => app.close());

  const text = (res: { body: { result: { content: Array<{ text: string }> } } }) => res.body.result.content[0].text;

  it('discovers tools across several modules, in the same registry as registerTool', async () => {
    app.get(MCPServer).registerTool('runtime', 'Registered at run time', { type: 'object' }, () => 'rt');
    try {
      const res = await mcp.post(mcpMessage('tools/list'));
      expect(res.status).toBe(200);
      const names = res.body.result.tools.map((t: { name: string }) => t.name);
      expect(names).toEqual(['greet', 'measure', 'plain', 'book', 'locate', 'stats', 'runtime']);
      // Published exactly like a registered tool: the same fields in the same order, `name` first.
      const keysOf = (name: string) =>
        Object.keys(res.body.result.tools.find((t: { name: string }) => t.name === name));
      expect(keysOf('plain')).toEqual(['name', 'description', 'inputSchema']);
      expect(keysOf('plain')).toEqual(keysOf('runtime'));
      const reply = await mcp.post(mcpMessage('tools/call', { name: 'runtime', arguments: {} }));
      expect(reply.status).toBe(200);
      expect(text(reply)).toBe('rt');
    } finally {
      app.get(MCPServer).removeTool('runtime');
    }
  });

  it('names a prompt after its method by default, published with `name` first', async () => {
    const res = await mcp.post(mcpMessage('prompts/list'));
    expect(res.status).toBe(200);
    const limerick = res.body.result.prompts.find((p: { name: string }) => p.name === 'limerick');
    expect(Object.keys(limerick)).toEqual(['name', 'description']);
  });

  it('calls a tool that uses an injected service', async () => {
    const res = await mcp.post(mcpMessage('tools/call', { name: 'greet', arguments: { name: 'Ada' } }));
    expect(res.status).toBe(200);
    expect(text(res)).toBe('Hello, Ada!');
    expect(res.body.result.isError).toBeUndefined();
  });

  it('passes (args, inputResponses, ctx) to a method without parameter decorators, and defaults the name', async () => {
    const list = await mcp.post(mcpMessage('tools/list'));
    expect(list.status).toBe(200);
    const plain = list.body.result.tools.find((t: { name: string }) => t.name === 'plain');
    expect(plain.inputSchema).toEqual({ type: 'object', additionalProperties: false });
    const reply2 = await mcp.post(mcpMessage('tools/call', { name: 'plain', arguments: {} }));
    expect(reply2.status).toBe(200);
    expect(text(reply2)).toBe('{} {} true');
  });

  it('publishes a plain JSON Schema unaltered and validates with it', async () => {
    const list = await mcp.post(mcpMessage('tools/list'));
    expect(list.status).toBe(200);
    const measure = list.body.result.tools.find((t: { name: string }) => t.name === 'measure');
    expect(measure.inputSchema).toEqual(conditionalSchema);
    expect(list.body.result.tools[0].annotations).toEqual({ readOnlyHint: true });
    const reply3 = await mcp.post(
      mcpMessage('tools/call', { name: 'measure', arguments: { kind: 'temperature', unit: 'c' } }),
    );
    expect(reply3.status).toBe(200);
    expect(text(reply3)).toBe('temperature:c');
    const missing = await mcp.post(mcpMessage('tools/call', { name: 'measure', arguments: { kind: 'temperature' } }));
    expect(missing.status).toBe(200);
    expect(missing.body.result.isError).toBe(true);
    expect(text(missing)).toBe('Missing required argument: unit');
    const badRef = await mcp.post(
      mcpMessage('tools/call', { name: 'measure', arguments: { kind: 'length', unit: 'k' } }),
    );
    expect(badRef.status).toBe(200);
    expect(badRef.body.result.isError).toBe(true);
    expect(text(badRef)).toContain('"unit"');
  });

  it('derives the JSON Schema of a class-validator DTO, nested DTOs in $defs', async () => {
    const list = await mcp.post(mcpMessage('tools/list'));
    expect(list.status).toBe(200);
    const book = list.body.result.tools.find((t: { name: string }) => t.name === 'book');
    expect(book.inputSchema.type).toBe('object');
    expect(book.inputSchema.required).toEqual(expect.arrayContaining(['guest', 'nights', 'address']));
    expect(book.inputSchema.required).not.toContain('note');
    expect(book.inputSchema.properties.nights).toMatchObject({ type: 'integer', maximum: 10 });
    expect(book.inputSchema.properties.address).toEqual({ $ref: '#/$defs/AddressDto' });
    expect(book.inputSchema.$defs.AddressDto.properties.city).toMatchObject({ type: 'string', minLength: 2 });
  });

  it('validates DTO arguments with the rules the schema advertises', async () => {
    const ok = await mcp.post(
      mcpMessage(
        'tools/call',
        { name: 'book', arguments: { guest: 'Ada', nights: 2, address: { city: 'Rome' } } },
        { clientInfo: { name: 'test-client', version: '1.0.0' } },
      ),
    );
    expect(ok.status).toBe(200);
    expect(text(ok)).toBe('Ada x2 in Rome (test-client, 0)');
    const tooMany = await mcp.post(
      mcpMessage('tools/call', { name: 'book', arguments: { guest: 'Ada', nights: 11, address: { city: 'Rome' } } }),
    );
    expect(tooMany.status).toBe(200);
    expect(tooMany.body.result.isError).toBe(true);
    expect(text(tooMany)).toContain('"nights"');
    const nested = await mcp.post(
      mcpMessage('tools/call', { name: 'book', arguments: { guest: 'Ada', nights: 1, address: { city: 'R' } } }),
    );
    expect(nested.status).toBe(200);
    expect(nested.body.result.isError).toBe(true);
    expect(text(nested)).toContain('"address.city"');
  });

  it('converts zod schemas, validates input and output with them', async () => {
    const list = await mcp.post(mcpMessage('tools/list'));
    expect(list.status).toBe(200);
    const locate = list.body.result.tools.find((t: { name: string }) => t.name === 'locate');
    expect(locate.inputSchema).toMatchObject({
      type: 'object',
      properties: { place: { type: 'string', minLength: 1 } },
      required: ['place'],
    });
    expect(locate.outputSchema).toMatchObject({ type: 'object', required: ['lat', 'lon'] });
    const ok = await mcp.post(mcpMessage('tools/call', { name: 'locate', arguments: { place: 'Paris' } }));
    expect(ok.status).toBe(200);
    expect(ok.body.result.structuredContent).toEqual({ lat: 48.85, lon: 2.35 });
    expect(JSON.parse(text(ok))).toEqual({ lat: 48.85, lon: 2.35 });
    const invalid = await mcp.post(mcpMessage('tools/call', { name: 'locate', arguments: { place: '' } }));
    expect(invalid.status).toBe(200);
    expect(invalid.body.result.isError).toBe(true);
    expect(text(invalid)).toContain('"place"');
    const mismatch = await mcp.post(mcpMessage('tools/call', { name: 'locate', arguments: { place: 'nowhere' } }));
    expect(mismatch.status).toBe(200);
    expect(mismatch.body.result.isError).toBe(true);
    expect(text(mismatch)).toContain('outputSchema');
  });

  it('leaves out the 2020-12 $schema a converter adds, and publishes a JSON Schema as written', async () => {
    const server = app.get(MCPServer);
    const draft2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' };
    const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' };
    server.registerTool('in2020', 'Declares 2020-12', draft2020, () => '2020');
    server.registerTool('in07', 'Declares draft-07', draft07, () => '07');
    try {
      const list = await mcp.post(mcpMessage('tools/list'));
      expect(list.status).toBe(200);
      const tool = (name: string) => list.body.result.tools.find((t: { name: string }) => t.name === name);
      // zod publishes `$schema` 2020-12 on both views; a client never sees it.
      expect(Object.keys(tool('locate').inputSchema)).not.toContain('$schema');
      expect(Object.keys(tool('locate').outputSchema)).not.toContain('$schema');
      expect(tool('in2020').inputSchema).toEqual(draft2020);
      expect(tool('in07').inputSchema).toEqual(draft07);
      expect(draft2020.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    } finally {
      server.removeTool('in2020');
      server.removeTool('in07');
    }
  });

  it('checks a JSON Schema outputSchema: success and mismatch', async () => {
    const ok = await mcp.post(mcpMessage('tools/call', { name: 'stats', arguments: {} }));
    expect(ok.status).toBe(200);
    expect(ok.body.result.structuredContent).toEqual({ count: 3 });
    const bad = await mcp.post(mcpMessage('tools/call', { name: 'stats', arguments: { broken: true } }));
    expect(bad.status).toBe(200);
    expect(bad.body.result.isError).toBe(true);
    expect(text(bad)).toMatch(/^Error: output does not match the tool's outputSchema: .*"count"/);
  });

  it('serves resources, resource templates and prompts declared with decorators', async () => {
    const resources = await mcp.post(mcpMessage('resources/list'));
    expect(resources.status).toBe(200);
    expect(resources.body.result.resources).toEqual([
      { uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown' },
    ]);
    const templates = await mcp.post(mcpMessage('resources/templates/list'));
    expect(templates.status).toBe(200);
    expect(templates.body.result.resourceTemplates).toEqual([
      { uriTemplate: 'weather://{city}', name: 'city-weather' },
    ]);
    const readme = await mcp.post(mcpMessage('resources/read', { uri: 'docs://readme' }));
    expect(readme.status).toBe(200);
    expect(readme.body.result.contents).toEqual([
      { uri: 'docs://readme', text: '# Readme', mimeType: 'text/markdown' },
    ]);
    const city = await mcp.post(mcpMessage('resources/read', { uri: 'weather://Oslo' }));
    expect(city.status).toBe(200);
    expect(city.body.result.contents[0].text).toBe('weather://Oslo -> Oslo');
    const prompt = await mcp.post(mcpMessage('prompts/get', { name: 'haiku', arguments: { topic: 'rain' } }));
    expect(prompt.status).toBe(200);
    expect(prompt.body.result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write a haiku about rain' } },
    ]);
    const completeCity = await mcp.post(
      mcpMessage('completion/complete', {
        ref: { type: 'ref/resource', uri: 'weather://{city}' },
        argument: { name: 'city', value: 'pe' },
      }),
    );
    expect(completeCity.status).toBe(200);
    expect(completeCity.body.result.completion.values).toEqual(['Perth']);
    const completeTopic = await mcp.post(
      mcpMessage('completion/complete', {
        ref: { type: 'ref/prompt', name: 'haiku' },
        argument: { name: 'topic', value: 'dark' },
      }),
    );
    expect(completeTopic.status).toBe(200);
    expect(completeTopic.body.result.completion.values).toEqual(['dark-sea']);
  });
});
