import 'reflect-metadata';
import { IsInt, IsString } from 'class-validator';
import { z } from 'zod';
import { loadSchemaConverters } from '../../src/server/schema/schema-converter.js';
import { mcpMessage } from '../../src/testing/index.js';
import { McpKernel } from '../../src/core/index.js';

/** Compiles only when `value` has exactly type `T` (checked by tsc and ts-jest, not at run time). */
type Exact<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <A, B>(_proof: Exact<A, B>): void => undefined;

class OrderDto {
  @IsString()
  item!: string;

  @IsInt()
  quantity!: number;
}

const newKernel = () =>
  new McpKernel({ name: 'k', version: '1', requestState: { secret: 'run-time-registration-secret-0123456789' } });

async function call(kernel: McpKernel, name: string, args: unknown): Promise<Record<string, any>> {
  const response = await kernel.handleRequest(mcpMessage('tools/call', { name, arguments: args }));
  return (response as { result: Record<string, any> }).result;
}

async function listed(kernel: McpKernel): Promise<Array<Record<string, any>>> {
  const response = await kernel.handleRequest(mcpMessage('tools/list'));
  return (response as unknown as { result: { tools: Array<Record<string, any>> } }).result.tools;
}

beforeAll(() => loadSchemaConverters());

describe('Run-time registration takes what @Tool takes', () => {
  it('accepts a zod schema: published as JSON Schema, validated, and the handler arguments typed from it', async () => {
    const kernel = newKernel();
    kernel.addTool({
      name: 'greet',
      description: 'Greets',
      inputSchema: z.object({ who: z.string(), times: z.number().int().optional() }),
      handler: (args) => {
        assertType<typeof args, { who: string; times?: number | undefined }>(true);
        // @ts-expect-error: not a field of the schema
        void args.nope;
        return `hello ${args.who}`.repeat(args.times ?? 1);
      },
    });
    const [tool] = await listed(kernel);
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      properties: { who: { type: 'string' } },
      required: ['who'],
    });
    expect((await call(kernel, 'greet', { who: 'ada', times: 2 })).content[0].text).toBe('hello adahello ada');
    const invalid = await call(kernel, 'greet', { times: 1 });
    expect(invalid.isError).toBe(true);
  });

  it('accepts a zod outputSchema and a DTO class as the input schema', async () => {
    const kernel = newKernel();
    kernel.addTool({
      name: 'order',
      description: 'Orders',
      inputSchema: OrderDto,
      outputSchema: z.object({ total: z.number() }),
      handler: (args) => {
        assertType<typeof args, OrderDto>(true);
        return { total: args.quantity * 2 };
      },
    });
    const [tool] = await listed(kernel);
    expect(tool.inputSchema).toMatchObject({ properties: { item: { type: 'string' }, quantity: { type: 'integer' } } });
    expect(tool.outputSchema).toMatchObject({ properties: { total: { type: 'number' } } });
    expect((await call(kernel, 'order', { item: 'tea', quantity: 3 })).structuredContent).toEqual({ total: 6 });
    expect((await call(kernel, 'order', { item: 'tea', quantity: 'three' })).isError).toBe(true);
  });

  it('keeps the seed signature registerTool(name, description, schema, handler), with zod too', async () => {
    const kernel = newKernel();
    kernel.registerTool(
      'echo',
      'Echoes',
      { type: 'object', properties: { text: { type: 'string' } } },
      (args) => args.text,
    );
    kernel.registerTool('twice', 'Doubles', z.object({ n: z.number() }), (args) => {
      // @ts-expect-error: n is a number, not a string
      const wrong: string = args.n;
      void wrong;
      return String(args.n * 2);
    });
    expect((await call(kernel, 'echo', { text: 'hi' })).content[0].text).toBe('hi');
    expect((await call(kernel, 'twice', { n: 4 })).content[0].text).toBe('8');
  });

  it('defaults to no arguments without an inputSchema', async () => {
    const kernel = newKernel();
    kernel.addTool({ name: 'now', description: 'No arguments', handler: () => 'ok' });
    expect((await listed(kernel))[0].inputSchema).toEqual({ type: 'object', additionalProperties: false });
    expect((await call(kernel, 'now', { extra: 1 })).isError).toBe(true);
  });
});

describe('The registration handle', () => {
  it('updates a tool in place (description and handler) and removes it', async () => {
    const kernel = newKernel();
    const handle = kernel.addTool({ name: 'v', description: 'first', handler: () => 'one' });
    handle.update({ description: 'second', handler: () => 'two' });
    expect((await listed(kernel)).map((t) => [t.name, t.description])).toEqual([['v', 'second']]);
    expect((await call(kernel, 'v', {})).content[0].text).toBe('two');
    expect(handle.remove()).toBe(true);
    expect(kernel.hasTool('v')).toBe(false);
    expect(handle.remove()).toBe(false);
  });

  it('keeps the previous registration when an update is rejected', async () => {
    const kernel = newKernel();
    const handle = kernel.addTool({ name: 'keep', description: 'valid', handler: () => 'kept' });
    expect(() => handle.update({ name: 'not valid!' })).toThrow('Invalid tool name');
    expect((await call(kernel, 'keep', {})).content[0].text).toBe('kept');
  });

  it('follows a renamed tool, so remove() takes away the new name', () => {
    const kernel = newKernel();
    const handle = kernel.addTool({ name: 'old', description: 'renamed', handler: () => '' });
    handle.update({ name: 'new' });
    expect([kernel.hasTool('old'), kernel.hasTool('new')]).toEqual([false, true]);
    handle.remove();
    expect(kernel.hasTool('new')).toBe(false);
  });

  it('is returned for prompts and resources too', async () => {
    const kernel = newKernel();
    const prompt = kernel.addPrompt({ name: 'p', description: 'first', handler: () => 'a' });
    prompt.update({ description: 'second' });
    const prompts = (await kernel.handleRequest(mcpMessage('prompts/list'))) as unknown as {
      result: { prompts: Array<{ description: string }> };
    };
    expect(prompts.result.prompts.map((p) => p.description)).toEqual(['second']);
    const resource = kernel.addResource({ uri: 'file:///a', name: 'a', handler: () => 'A' });
    expect(resource.remove()).toBe(true);
    expect(prompt.remove()).toBe(true);
  });
});
