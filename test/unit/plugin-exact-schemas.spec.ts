import fc from 'fast-check';
import ts from 'typescript';
import type { JsonSchema } from '../../src/protocol/mcp-types.js';
import { SchemaCompiler } from '../../src/server/schema/schema-compiler.js';
import { applyArgumentPlan, type ArgumentPlan } from '../../src/plugin/metadata/plugin-metadata.js';
import { compileWithPlugin, evaluate, type PluginOutcome } from '../support/plugin-compile.js';

// The plugin's promise: for every type it accepts, the published schema admits exactly the values of the type
// (TypeScript's own checker is the judge), and the method receives what it declares; every other type fails the
// build. Each form below is compiled with the plugin as a tool argument `v` and validated as the server does.

const schemas = new SchemaCompiler();

interface Derived {
  inputSchema: JsonSchema;
  argumentPlan?: ArgumentPlan;
}

function derivedOf(outcome: PluginOutcome): Derived {
  if (outcome.error) throw outcome.error;
  const T = evaluate(outcome.js).T as { _MCP_METADATA_FACTORY(): Record<string, Derived> };
  return T._MCP_METADATA_FACTORY().m;
}

/** Whether the published schema admits `{ v: value }`, by the server's own validator. */
function admits(schema: JsonSchema, value: unknown): boolean {
  return schemas.compile(schema, 'test').validate({ v: value }) === null;
}

const libraries = new Map<string, ts.SourceFile | undefined>();

/** A compiler host with one file of the given source beside the library files, read once per test file. */
function hostOf(source: string, name = 't.ts'): ts.CompilerHost {
  const host = ts.createCompilerHost({});
  const read = host.getSourceFile;
  host.getSourceFile = (file, ...rest) => {
    if (file === name) return ts.createSourceFile(file, source, ts.ScriptTarget.ES2022);
    if (!libraries.has(file)) libraries.set(file, read(file, ...rest));
    return libraries.get(file);
  };
  return host;
}

/**
 * TypeScript's verdict on each value (JSON) of each row as its `T`, from one program of a namespace per row: the
 * lines that do not compile.
 */
function typeScriptAdmits(rows: Array<{ type: string; types?: string; values: unknown[] }>): boolean[][] {
  const lines: string[] = [];
  const at = rows.map(({ type, types = '', values }, row) => {
    lines.push(`namespace Row${row} {`, `type T = ${type};`, ...types.split('\n'));
    const first = lines.length;
    lines.push(...values.map((value, index) => `const v${index}: T = ${JSON.stringify(value)};`), '}');
    return first;
  });
  const program = ts.createProgram(['t.ts'], { strict: true, noEmit: true, types: [] }, hostOf(lines.join('\n')));
  const failing = new Set(
    ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start!).line),
  );
  return rows.map(({ values }, row) => values.map((_, index) => !failing.has(at[row] + index)));
}

/** Each row: a type (after `type` declarations), values of it and values outside it. */
const FORMS: Record<string, { types?: string; type: string; inside: unknown[]; outside: unknown[] }> = {
  'a template literal with string holes': {
    type: '`user-${string}`',
    inside: ['user-', 'user-7', 'user-user-', 'user-\n'],
    outside: ['admin', 'user', 'User-1', ' user-1', 7],
  },
  'a union of a literal and template literals': {
    type: "'admin' | `id-${string}` | `${'a' | 'b'}.${string}`",
    inside: ['admin', 'id-', 'a.', 'b.x.y'],
    outside: ['root', 'c.x', 'ida', 'admin '],
  },
  'a tuple with a rest element last': {
    type: '[string, ...number[]]',
    inside: [['a'], ['a', 1, 2]],
    outside: [[], [1], ['a', 'b'], ['a', 1, true]],
  },
  'a getter-only accessor and a get/set accessor': {
    types: `class Labelled {
      get label(): string { return ''; }
      get size(): number { return 0; }
      set size(value: number) {}
    }`,
    type: 'Labelled',
    inside: [{ label: 'x', size: 1 }],
    outside: [{ label: 123, size: 1 }, { label: 'x', size: '1' }, { size: 1 }, { label: 'x' }],
  },
  'a template literal key': {
    type: '{ [key: `x-${string}`]: number }',
    inside: [{}, { 'x-a': 1, 'x-': 2 }],
    outside: [{ 'x-a': 'one' }, { 'x-': null }],
  },
  'a string index signature beside a template literal key': {
    type: '{ [key: string]: number | string; [key: `n-${string}`]: number }',
    inside: [{ a: 'x', 'n-a': 1 }],
    outside: [{ 'n-a': 'x' }, { a: true }],
  },
};

/** Each row: a type the plugin refuses, and what the build error must name. */
const REFUSED: Record<string, { types?: string; type: string; names: string[] }> = {
  'a number hole in a template literal': { type: '`user-${number}`', names: ['`number` hole'] },
  'a bigint hole in a template literal': { type: '`${bigint}n`', names: ['`bigint` hole'] },
  'two adjacent holes': { type: '`${string}${string}!`', names: ['nothing between them'] },
  'Uppercase<string>': { type: 'Uppercase<string>', names: ['Uppercase<string>', 'intrinsic string type'] },
  'Lowercase<string>': { type: 'Lowercase<string>', names: ['Lowercase<string>', 'intrinsic'] },
  'Capitalize<string>': { type: 'Capitalize<string>', names: ['Capitalize<string>', 'intrinsic'] },
  'Uncapitalize<string>': { type: 'Uncapitalize<string>', names: ['Uncapitalize<string>', 'intrinsic'] },
  'an intrinsic hole': { type: '`id-${Uppercase<string>}`', names: ['hole'] },
  'elements after a rest element': {
    type: '[string, ...number[], boolean]',
    names: ['[string, ...number[], boolean]', 'elements after a rest element'],
  },
  'a number index signature': { type: 'Record<number, string>', names: ['number index signature'] },
  'a number index beside properties': { type: '{ a: string; [n: number]: string }', names: ['number index'] },
  'an initializer the server cannot fill in': {
    types: 'class Page { limit: number = Date.now(); }',
    type: 'Page',
    names: ['argument "v.limit"', '`Date.now()`', 'not a literal'],
  },
  'a union a Date cannot be told apart in': {
    type: 'Date | string',
    names: ['argument "v"', 'string | Date', 'cannot tell'],
  },
  'a union of objects, one holding a default': {
    types: "class A { kind: 'a' = 'a'; } interface B { kind: 'b' }",
    type: 'A | B',
    names: ['A | B', 'cannot tell'],
  },
};

// The template literal types whose patterns are held to TypeScript's verdict on any string.
const TEMPLATES = [
  '`user-${string}`',
  '`${string}.${string}`',
  '`a${string}a`',
  '`${string}-x-${string}:${string}`',
  "`${'a' | 'b'}/${string}`",
  '`[${string}]$(${string})`',
];
const PIECES = [
  'u',
  's',
  'e',
  'r',
  '-',
  '.',
  'a',
  'b',
  'x',
  ':',
  '/',
  '[',
  ']',
  '$',
  '(',
  ')',
  '\n',
  '😀',
  'user-',
  '-x-',
];

// Dates and initializer defaults at every depth an argument can hold them.
const PLANNED = `
  class Stop { at!: Date; note: string = 'none'; }
  class Page { limit: number = 10; tags: string[] = ['a']; order: 'asc' | 'desc' = 'asc'; }
  interface Tree { at: Date | null; children: Tree[] }
  export class T {
    @Tool() m(
      @Args('at') at: Date,
      @Args('page') page: Page,
      @Args('stops') stops: Stop[],
      @Args('span') span: [Date, ...Date[]],
      @Args('byName') byName: Record<string, Date>,
      @Args('tree') tree: Tree,
      @Args('either') either: Date | number,
    ) {}
  }`;

const toolOf = ({ types = '', type }: { types?: string; type: string }) =>
  `${types}\nexport class T { @Tool() m(@Args('v') v: ${type}) {} }`;

describe('nestjs-mcp/plugin: schemas exactly as strict as the types', () => {
  let outcomes: Record<string, PluginOutcome>;
  let verdicts: boolean[][];
  beforeAll(() => {
    verdicts = typeScriptAdmits(
      Object.values(FORMS).map((row) => ({ ...row, values: [...row.inside, ...row.outside] })),
    );
    const sources: Record<string, string> = {};
    Object.values(FORMS).forEach((row, index) => (sources[`form${index}`] = toolOf(row)));
    Object.values(REFUSED).forEach((row, index) => (sources[`refused${index}`] = toolOf(row)));
    sources.templates = `export class T { @Tool() m(${TEMPLATES.map((type, i) => `@Args('v${i}') v${i}: ${type}`)}) {} }`;
    sources.planned = PLANNED;
    outcomes = compileWithPlugin(sources);
  }, 60_000);

  it('a template literal pattern admits exactly the strings TypeScript does, for any string', () => {
    const { inputSchema } = derivedOf(outcomes.templates);
    const properties = inputSchema.properties as Record<string, JsonSchema>;
    const source = TEMPLATES.map((type, index) => `type T${index} = ${type};`).join('\n');
    const program = ts.createProgram(['t.ts'], { strict: true, noLib: true, types: [] }, hostOf(source));
    const checker = program.getTypeChecker();
    const declarations = program.getSourceFile('t.ts')!.statements as unknown as ts.TypeAliasDeclaration[];
    const types = declarations.map((declaration) => checker.getTypeAtLocation(declaration.name));
    const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 10 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(fc.nat(TEMPLATES.length - 1), text, (index, value) => {
        const typed = checker.isTypeAssignableTo(checker.getStringLiteralType(value), types[index]);
        const schema = { type: 'object', properties: { v: properties[`v${index}`] } };
        expect(admits(schema, value)).toBe(typed);
      }),
      { numRuns: 3000 },
    );
  });

  it('the call revives every Date and fills in every initializer default, leaving the validated value as it came', () => {
    const { inputSchema, argumentPlan } = derivedOf(outcomes.planned);
    const args = JSON.parse(`{
      "at": "2026-12-05T10:00:00+01:00",
      "page": { "order": "desc" },
      "stops": [{ "at": "2026-01-01T00:00:00Z" }, { "at": "2026-01-02T00:00:00Z", "note": "late" }],
      "span": ["2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z"],
      "byName": { "start": "2026-01-01T00:00:00Z", "__proto__": "2026-01-04T00:00:00Z" },
      "tree": { "at": null, "children": [{ "at": "2026-01-05T00:00:00Z", "children": [] }] },
      "either": 5
    }`);
    expect(schemas.compile(inputSchema, 'test').validate(args)).toBeNull();
    const sent = structuredClone(args);
    const given = applyArgumentPlan(argumentPlan!, args) as Record<string, any>;
    expect(args).toEqual(sent);
    expect(given.at).toEqual(new Date('2026-12-05T09:00:00Z'));
    expect(given.page).toEqual({ order: 'desc', limit: 10, tags: ['a'] });
    expect(given.stops).toEqual([
      { at: new Date('2026-01-01T00:00:00Z'), note: 'none' },
      { at: new Date('2026-01-02T00:00:00Z'), note: 'late' },
    ]);
    expect(given.span).toEqual([new Date('2026-01-01T00:00:00Z'), new Date('2026-01-03T00:00:00Z')]);
    expect(Object.getPrototypeOf(given.byName)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(given.byName, '__proto__')?.value).toEqual(new Date('2026-01-04T00:00:00Z'));
    expect(given.tree.at).toBeNull();
    expect(given.tree.children[0].at).toEqual(new Date('2026-01-05T00:00:00Z'));
    expect(given.either).toBe(5);
    // Each call gets its own default, not one array shared by every call.
    given.page.tags.push('b');
    expect((applyArgumentPlan(argumentPlan!, args) as Record<string, any>).page.tags).toEqual(['a']);
  });

  it('a Date arrives as the instant its date-time string names, in every form the schema admits', () => {
    const { inputSchema, argumentPlan } = derivedOf(outcomes.planned);
    const schema = { type: 'object', properties: { v: (inputSchema.properties as Record<string, JsonSchema>).at } };
    const at = (text: string) => {
      expect(admits(schema, text)).toBe(true);
      return (applyArgumentPlan(argumentPlan!, { at: text }) as { at: Date }).at.toISOString();
    };
    expect(at('2026-12-05t10:00:00.1234567z')).toBe('2026-12-05T10:00:00.123Z');
    expect(at('2026-12-05 10:00:00+0530')).toBe('2026-12-05T04:30:00.000Z');
    expect(at('2026-12-05T10:00:00-02')).toBe('2026-12-05T12:00:00.000Z');
    expect(at('0001-02-03T00:00:00Z')).toBe('0001-02-03T00:00:00.000Z');
    expect(at('2016-12-31T23:59:60Z')).toBe('2017-01-01T00:00:00.000Z');
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        (date) => {
          expect(at(date.toISOString())).toBe(date.toISOString());
        },
      ),
    );
    expect(admits(schema, 'yesterday')).toBe(false);
    expect(admits(schema, 1733390000000)).toBe(false);
  });

  it.each(Object.entries(FORMS).map(([title, row], index) => [title, index, row] as const))(
    '%s: the schema admits the values of the type and no other',
    (_title, index, row) => {
      const { inputSchema } = derivedOf(outcomes[`form${index}`]);
      const values = [...row.inside, ...row.outside];
      const judged = verdicts[index];
      expect(judged).toEqual(values.map((_, at) => at < row.inside.length));
      expect(values.map((value) => admits(inputSchema, value))).toEqual(judged);
    },
  );

  it.each(Object.entries(REFUSED).map(([title, row], index) => [title, index, row] as const))(
    'refuses %s, naming the tool and the argument',
    (_title, index, { names }) => {
      const { error } = outcomes[`refused${index}`];
      expect(error?.message).toMatch(/^nestjs-mcp\/plugin: T\.m: argument "v/);
      for (const name of names) expect(error!.message).toContain(name);
    },
  );
});
