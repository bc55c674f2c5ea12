import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createMcpTestClient, type McpTestClient } from '../../src/testing/index.js';

// The code below is docs/decorators.md's "What a method may return" example, verbatim but for the import path; keep them in step.
import { Injectable, Module } from '@nestjs/common';
import {
  Args,
  Content,
  McpModule,
  Prompt,
  Resource,
  ResourceTemplate,
  ResourceUri,
  Tool,
  ToolError,
} from '../../src/index.js';
import type { PromptValue, ResourceReadValue } from '../../src/index.js';

@Injectable()
class CatalogTools {
  private readonly cities = ['Oslo', 'Osaka', 'Paris'];

  @Tool({ description: 'A string becomes one text block' })
  greet(): string {
    return 'hello';
  }

  @Tool({ description: 'Any other value becomes JSON text' })
  stats(): { cities: number } {
    return { cities: this.cities.length };
  }

  @Tool({
    description: 'With an outputSchema, the value is also structuredContent',
    outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
  })
  count(): { count: number } {
    return { count: this.cities.length };
  }

  @Tool({ description: 'Content blocks, one or an array' })
  badge() {
    return [Content.text('Oslo'), Content.image('iVBORw0KGgo=', 'image/png')];
  }

  @Tool({ description: 'A ToolError is an isError result the model sees' })
  fail(): never {
    throw new ToolError('no such city');
  }

  @Resource({ uri: 'catalog://cities', name: 'cities', mimeType: 'text/plain' })
  cityList(): ResourceReadValue {
    return this.cities.join('\n');
  }

  @ResourceTemplate({
    uriTemplate: 'catalog://cities/{name}',
    name: 'city',
    mimeType: 'application/json',
    complete: { name: 'cityNames' },
  })
  city(@ResourceUri() uri: string, @Args('name') name: string): ResourceReadValue {
    return { uri, mimeType: 'application/json', text: JSON.stringify({ name }) };
  }

  @Prompt({
    description: 'Plan a trip',
    arguments: [{ name: 'city', required: true }],
    complete: { city: 'cityNames' },
  })
  plan_trip(@Args('city') city: string): PromptValue {
    return [
      { role: 'user', content: { type: 'text', text: `Plan two days in ${city}.` } },
      { role: 'assistant', content: { type: 'text', text: 'Which season?' } },
    ];
  }

  cityNames(value: string): string[] {
    return this.cities.filter((c) => c.toLowerCase().startsWith(value.toLowerCase()));
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'catalog', version: '1.0.0' })], providers: [CatalogTools] })
class AppModule {}

describe('docs/decorators.md: what a method may return', () => {
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({ logger: false });
    await app.init();
    mcp = createMcpTestClient(app);
  });
  afterAll(() => app.close());

  it('tools: a string, any value as JSON, structuredContent with an outputSchema, content blocks, a ToolError', async () => {
    expect((await mcp.callTool('greet')).result?.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect((await mcp.callTool('stats')).result?.content).toEqual([{ type: 'text', text: '{"cities":3}' }]);
    const count = await mcp.callTool('count');
    expect(count.result).toMatchObject({
      content: [{ type: 'text', text: '{"count":3}' }],
      structuredContent: { count: 3 },
    });
    expect((await mcp.callTool('badge')).result?.content).toEqual([
      { type: 'text', text: 'Oslo' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ]);
    expect((await mcp.callTool('fail')).result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error: no such city' }],
    });
  });

  it('resources: a string with the declared mimeType, and a contents object from a template', async () => {
    expect((await mcp.readResource('catalog://cities')).result?.contents).toEqual([
      { uri: 'catalog://cities', mimeType: 'text/plain', text: 'Oslo\nOsaka\nParis' },
    ]);
    expect((await mcp.readResource('catalog://cities/Oslo')).result?.contents).toEqual([
      { uri: 'catalog://cities/Oslo', mimeType: 'application/json', text: '{"name":"Oslo"}' },
    ]);
  });

  it('prompts: messages; completers: string arrays, for a prompt argument and a template variable', async () => {
    expect((await mcp.getPrompt('plan_trip', { city: 'Oslo' })).result?.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Plan two days in Oslo.' } },
      { role: 'assistant', content: { type: 'text', text: 'Which season?' } },
    ]);
    expect(
      (await mcp.complete({ type: 'ref/prompt', name: 'plan_trip' }, { name: 'city', value: 'os' })).result?.completion
        .values,
    ).toEqual(['Oslo', 'Osaka']);
    expect(
      (await mcp.complete({ type: 'ref/resource', uri: 'catalog://cities/{name}' }, { name: 'name', value: 'p' }))
        .result?.completion.values,
    ).toEqual(['Paris']);
  });
});
