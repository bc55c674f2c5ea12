import 'reflect-metadata';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { Args, McpModule, Tool } from '../../src/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';

// The README's quick start, verbatim but for the bootstrap (the test listens nowhere); keep them in step.
@Injectable()
export class GreetingTools {
  @Tool({
    description: 'Greets someone by name',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  })
  greet(@Args('name') name: string) {
    return `Hello, ${name}!`;
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'my-app', version: '1.0.0' })], providers: [GreetingTools] })
export class AppModule {}

describe('README quick start: a decorated provider and McpModule', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await NestFactory.create(AppModule, { logger: false });
    await app.init();
  });
  afterAll(() => app.close());

  it('serves the greet tool the README calls from the Inspector', async () => {
    const mcp = createMcpTestClient(app);
    const listed = await mcp.listTools();
    expect(listed.result?.tools).toEqual([
      expect.objectContaining({ name: 'greet', description: 'Greets someone by name' }),
    ]);
    const greeted = await mcp.callTool('greet', { name: 'Ada' });
    expect(greeted.result?.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });

  it('is the code the README shows', () => {
    const readme = readFileSync('README.md', 'utf8');
    const block = /## Quick start\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    for (const line of [
      "greet(@Args('name') name: string) {",
      'return `Hello, ${name}!`;',
      "McpModule.forRoot({ name: 'my-app', version: '1.0.0' })",
    ])
      expect(block).toContain(line);
    expect(readme).toContain('--tool-name greet --tool-arg name=Ada');
  });
});
