import ts from 'typescript';
import { factory } from '../../src/plugin/index.js';
import { compileWithPlugin, evaluate, type PluginOutcome } from '../support/plugin-compile.js';

/** Each row: a TypeScript source with a class `T`, and what the plugin derives for its method `m`. */
const TABLE: Record<string, { source: string; expected: Record<string, unknown> }> = {
  'named arguments: string, number, boolean, required': {
    source: `export class T { @Tool() m(@Args('s') s: string, @Args('n') n: number, @Args('b') b: boolean) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: {
        type: 'object',
        properties: { s: { type: 'string' }, n: { type: 'number' }, b: { type: 'boolean' } },
        required: ['s', 'n', 'b'],
      },
    },
  },
  'optional and default values': {
    source: `export class T { @Tool() m(@Args('n') n: number | undefined, @Args('units') units = 'metric', @Args('a') a?: string) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: {
        type: 'object',
        properties: { n: { type: 'number' }, units: { type: 'string', default: 'metric' }, a: { type: 'string' } },
      },
      argumentPlan: { defaults: { units: 'metric' } },
    },
  },
  'a union of literals is an enum; a TypeScript enum too': {
    source: `enum Unit { C = 'C', F = 'F' }
      export class T { @Tool() m(@Args('u') u: 'celsius' | 'fahrenheit', @Args('e') e: Unit, @Args('k') k: 1 | 2 | 3) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: {
        type: 'object',
        properties: {
          u: { type: 'string', enum: ['celsius', 'fahrenheit'] },
          e: { type: 'string', enum: ['C', 'F'] },
          k: { type: 'integer', enum: [1, 2, 3] },
        },
        required: ['u', 'e', 'k'],
      },
    },
  },
  'arrays, readonly arrays and tuples': {
    source: `export class T { @Tool() m(@Args('a') a: string[], @Args('r') r: readonly number[], @Args('t') t: [string, number]) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: {
        type: 'object',
        properties: {
          a: { type: 'array', items: { type: 'string' } },
          r: { type: 'array', items: { type: 'number' } },
          t: {
            type: 'array',
            prefixItems: [{ type: 'string' }, { type: 'number' }],
            minItems: 2,
            items: false,
            maxItems: 2,
          },
        },
        required: ['a', 'r', 't'],
      },
    },
  },
  'Date is a date-time string the call revives; null joins the type': {
    source: `export class T { @Tool() m(@Args('when') when: Date, @Args('note') note: string | null) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: {
        type: 'object',
        properties: { when: { type: 'string', format: 'date-time' }, note: { type: ['string', 'null'] } },
        required: ['when', 'note'],
      },
      argumentPlan: { properties: { when: { date: true } } },
    },
  },
  'the whole arguments as an interface, nested objects, readonly and property comments': {
    source: `interface Place {
        /** The city's name */
        readonly city: string;
        /** Where exactly */
        at?: { lat: number; lon: number };
        tags: Record<string, string>;
      }
      export class T { @Tool() m(@Args() args: Place) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string', description: "The city's name", readOnly: true },
          at: {
            type: 'object',
            properties: { lat: { type: 'number' }, lon: { type: 'number' } },
            required: ['lat', 'lon'],
            description: 'Where exactly',
          },
          tags: { type: 'object', properties: {}, additionalProperties: { type: 'string' } },
        },
        required: ['city', 'tags'],
      },
    },
  },
  'a DTO class: property defaults, and class-validator decorators refine the schema': {
    source: `class Order {
        @IsInt() @Min(1) @Max(10) quantity!: number;
        @IsEmail() email!: string;
        @IsOptional() @MinLength(2) @Matches(/^[a-z]+$/) code!: string;
        @Length(3, 5) sku!: string;
        priority: 'low' | 'high' = 'low';
      }
      export class T { @Tool() m(@Args() order: Order) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: {
        type: 'object',
        properties: {
          quantity: { type: 'integer', minimum: 1, maximum: 10 },
          email: { type: 'string', format: 'email' },
          code: { type: 'string', minLength: 2, pattern: '^[a-z]+$' },
          sku: { type: 'string', minLength: 3, maxLength: 5 },
          priority: { type: 'string', enum: ['low', 'high'], default: 'low' },
        },
        required: ['quantity', 'email', 'sku'],
      },
      argumentPlan: { defaults: { priority: 'low' } },
    },
  },
  'descriptions: the method JSDoc and @param tags': {
    source: `export class T {
        /**
         * Current weather for a city.
         * @param city - the city to look up
         */
        @Tool()
        m(@Args('city') city: string) {}
      }`,
    expected: {
      kind: 'tool',
      description: 'Current weather for a city.',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string', description: 'the city to look up' } },
        required: ['city'],
      },
    },
  },
  'the output schema from a plain data return type, awaited; no arguments, no input schema': {
    source: `interface Forecast { city: string; temperatureC: number }
      export class T { @Tool() async m(): Promise<Forecast> { return { city: 'x', temperatureC: 1 }; } }`,
    expected: {
      kind: 'tool',
      outputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, temperatureC: { type: 'number' } },
        required: ['city', 'temperatureC'],
      },
    },
  },
  'no output schema for a string, an array, a result carrying its own content or holding a Date': {
    source: `export class T {
        @Tool() d(): { at: Date } { return { at: new Date() }; }
        @Tool() m(): { content: { type: 'text'; text: string }[] } { return { content: [] }; }
        @Tool() s(): string { return ''; }
        @Tool() a(): number[] { return []; }
      }`,
    expected: { kind: 'tool' },
  },
  'an explicit inputSchema wins: only a missing description is derived': {
    source: `export class T {
        /** Adds. */
        @Tool({ inputSchema: { type: 'object' } }) m(@Args('f') f: () => void): { sum: number } { return { sum: 1 }; }
      }`,
    expected: { kind: 'tool', description: 'Adds.' },
  },
  'no parameter decorators: the first parameter is the arguments': {
    source: `export class T { @Tool({ name: 'x' }) m(args: { a: number }, inputResponses: unknown, ctx: unknown) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    },
  },
  'other parameters (the context) take no argument': {
    source: `export class T { @Tool() m(@Args('a') a: number, @McpCtx() ctx: { x: () => void }) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    },
  },
  'a named recursive type goes to $defs': {
    source: `interface Node { name: string; children: Node[] }
      export class T { @Tool() m(@Args('tree') tree: Node) {} }`,
    expected: {
      kind: 'tool',
      inputSchema: {
        type: 'object',
        properties: { tree: { $ref: '#/$defs/Node' } },
        required: ['tree'],
        $defs: {
          Node: {
            type: 'object',
            properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
            required: ['name', 'children'],
          },
        },
      },
    },
  },
  'a prompt: its arguments and description': {
    source: `export class T {
        /**
         * Summarises a city's weather.
         * @param city which city
         */
        @Prompt()
        m(@Args('city') city: string, @Args('style') style?: 'short' | 'long') {}
      }`,
    expected: {
      kind: 'prompt',
      description: "Summarises a city's weather.",
      arguments: [
        { name: 'city', required: true, description: 'which city' },
        { name: 'style', required: false },
      ],
    },
  },
  'a resource template: its description': {
    source: `export class T {
        /** A city's forecast. */
        @ResourceTemplate({ uriTemplate: 'w://{city}', name: 'f' }) m() {}
      }`,
    expected: { kind: 'resourceTemplate', description: "A city's forecast." },
  },
  'a route tool: its description and output schema': {
    source: `export class T {
        /** Finds an order. */
        @RouteTool() m(): { id: string } { return { id: '' }; }
      }`,
    expected: {
      kind: 'routeTool',
      description: 'Finds an order.',
      outputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  },
};

/** Each row: a source the plugin refuses, and the parts its build error must name. */
const REFUSED: Record<string, { source: string; names: string[] }> = {
  'a function': {
    source: `export class T { @Tool() m(@Args('cb') cb: (x: number) => void) {} }`,
    names: ['T.m', 'argument "cb"', '(x: number) => void', 'a function'],
  },
  'a class with methods': {
    source: `class Money { amount = 0; add(other: Money) { return other; } }
      export class T { @Tool() m(@Args() args: { price: Money }) {} }`,
    names: ['T.m', 'argument "price"', 'Money', 'methods (add)'],
  },
  'a recursive type without a name': {
    source: `type Box<T> = { inner: T };
      export class T { @Tool() m(@Args('x') x: { self: Box<typeof x> }) {} }`,
    names: ['T.m', 'argument "x.self.inner"', 'recursive'],
  },
  'a bigint deep in a DTO': {
    source: `interface Filter { range: { from: bigint } }
      export class T { @Tool() m(@Args() filter: Filter) {} }`,
    names: ['T.m', 'argument "range.from"', 'bigint'],
  },
  'a prompt argument that is not a string': {
    source: `export class T { @Prompt() m(@Args('n') n: number) {} }`,
    names: ['T.m', 'argument "n"', 'a prompt argument is a string'],
  },
  'arguments that are not an object': {
    source: `export class T { @Tool() m(@Args() all: string[]) {} }`,
    names: ['T.m', 'its arguments', 'string[]'],
  },
};

describe('nestjs-mcp/plugin: TypeScript signatures → JSON Schema', () => {
  let outcomes: Record<string, PluginOutcome>;
  beforeAll(() => {
    const sources: Record<string, string> = {};
    Object.values(TABLE).forEach(({ source }, index) => (sources[`ok${index}`] = source));
    Object.values(REFUSED).forEach(({ source }, index) => (sources[`refused${index}`] = source));
    outcomes = compileWithPlugin(sources);
  }, 60_000);

  it.each(Object.entries(TABLE).map(([title, row], index) => [title, index, row] as const))(
    '%s',
    (_title, index, { expected }) => {
      const outcome = outcomes[`ok${index}`];
      expect(outcome.error).toBeUndefined();
      const T = evaluate(outcome.js!).T as { _MCP_METADATA_FACTORY(): Record<string, unknown> };
      const all = T._MCP_METADATA_FACTORY();
      expect(all.m).toEqual(expected);
      // Methods other than `m` in a row are held to the same expectation.
      for (const other of Object.keys(all)) expect(all[other]).toEqual(expected);
    },
  );

  it.each(Object.entries(REFUSED).map(([title, row], index) => [title, index, row] as const))(
    'refuses %s, naming the method and the type',
    (_title, index, { names }) => {
      const { error } = outcomes[`refused${index}`];
      expect(error?.message).toMatch(/^nestjs-mcp\/plugin: /);
      for (const name of names) expect(error!.message).toContain(name);
    },
  );

  it('leaves a class without MCP methods as it was', () => {
    const { ok } = compileWithPlugin({ ok: `export class T { m(@Args('a') a: () => void) {} }` });
    expect(ok.js).not.toContain('_MCP_METADATA_FACTORY');
    expect(evaluate(ok.js!).T).toBeDefined();
  });

  it('refuses a compile without the type checker rather than leave the schemas out', () => {
    const source = `import { Tool } from 'nestjs-mcp';\nexport class T { @Tool() m(a: string) {} }`;
    // ts-jest with `isolatedModules`: no program for CommonJS, a program of one unresolved file for ESM.
    expect(() => factory({})).toThrow(/needs the type checker.*"isolatedModules": false/);
    const compile = (transformers: (program: ts.Program) => ts.CustomTransformers) => {
      const host = ts.createCompilerHost({});
      const file = ts.createSourceFile('t.ts', source, ts.ScriptTarget.ES2022);
      host.getSourceFile = (name) => (name === 't.ts' ? file : undefined);
      host.writeFile = () => undefined;
      const program = ts.createProgram(['t.ts'], { noResolve: true, noLib: true, experimentalDecorators: true }, host);
      program.emit(undefined, undefined, undefined, false, transformers(program));
    };
    expect(() => compile((program) => ({ before: [factory({ program })] }))).toThrow(/needs the type checker/);
    // A checker of another program than the one emitting knows none of its nodes: refused, not read as no tools.
    const other = ts.createProgram([], {});
    expect(() => compile(() => ({ before: [factory({ program: other })] }))).toThrow(/t\.ts is not in the program/);
  });
});
