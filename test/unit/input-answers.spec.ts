import { answers, capabilityNeededFor, clientDeclares, isInputResponseFor } from '../../src/server/input-required.js';
import type { ClientCapabilities, InputRequest } from '../../src/protocol/mcp-types.js';
import { SchemaCompiler } from '../../src/server/schema/schema-compiler.js';

const schemas = new SchemaCompiler();
const form: InputRequest = {
  method: 'elicitation/create',
  params: {
    message: 'Age?',
    requestedSchema: { type: 'object', properties: { age: { type: 'integer', minimum: 0 } }, required: ['age'] },
  },
};

describe('answers()', () => {
  it('checks accepted form content against the requested schema, and lets decline and cancel through', () => {
    expect(answers(form, { action: 'accept', content: { age: 4 } }, schemas)).toBe(true);
    expect(answers(form, { action: 'accept', content: { age: -1 } }, schemas)).toBe(false);
    expect(answers(form, { action: 'accept' }, schemas)).toBe(false);
    expect(answers(form, { action: 'decline' }, schemas)).toBe(true);
    expect(answers(form, { action: 'cancel' }, schemas)).toBe(true);
    expect(answers(form, { action: 'accept', content: { age: 4, nested: { x: 1 } } }, schemas)).toBe(false);
  });

  it('checks URL elicitation by its action only', () => {
    const url: InputRequest = {
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Go', url: 'https://example.com' },
    };
    expect(answers(url, { action: 'accept' }, schemas)).toBe(true);
    expect(answers(url, { action: 'later' }, schemas)).toBe(false);
  });

  it('compiles an inline schema once per distinct text', () => {
    const a = schemas.compileByValue({ type: 'object', properties: { n: { type: 'number' } } }, 's');
    const b = schemas.compileByValue({ type: 'object', properties: { n: { type: 'number' } } }, 's');
    expect(a).toBe(b);
    for (let i = 0; i < 300; i++)
      schemas.compileByValue({ type: 'object', properties: { [`k${i}`]: { type: 'string' } } }, 's');
    const c = schemas.compileByValue({ type: 'object', properties: { n: { type: 'number' } } }, 's');
    expect(c).not.toBe(a);
    expect(c.validate({ n: 'x' })).not.toBeNull();
  });
});

describe('isInputResponseFor()', () => {
  it('accepts CreateMessageResult content as one block or several', () => {
    const base = { role: 'assistant', model: 'm' };
    expect(isInputResponseFor('sampling/createMessage', { ...base, content: { type: 'text', text: 'hi' } })).toBe(true);
    expect(
      isInputResponseFor('sampling/createMessage', {
        ...base,
        content: [
          { type: 'text', text: 'hi' },
          { type: 'tool_use', id: '1' },
        ],
      }),
    ).toBe(true);
    expect(isInputResponseFor('sampling/createMessage', { ...base, content: [] })).toBe(false);
    expect(isInputResponseFor('sampling/createMessage', { ...base, content: 'hi' })).toBe(false);
    expect(
      isInputResponseFor('sampling/createMessage', { role: 'system', model: 'm', content: { type: 'text' } }),
    ).toBe(false);
  });

  it('accepts only file:// roots', () => {
    expect(isInputResponseFor('roots/list', { roots: [] })).toBe(true);
    expect(isInputResponseFor('roots/list', { roots: [{ uri: 'file:///a', name: 'A' }] })).toBe(true);
    expect(isInputResponseFor('roots/list', { roots: [{ uri: 'https://a' }] })).toBe(false);
    expect(isInputResponseFor('roots/list', { roots: [{ uri: 'file:///a', name: 3 }] })).toBe(false);
    expect(isInputResponseFor('roots/list', null)).toBe(false);
  });
});

describe('clientDeclares()', () => {
  it.each([
    [{ elicitation: {} }, 'elicitation', true],
    [{ elicitation: {} }, 'elicitation.url', false],
    [{ elicitation: { url: {} } }, 'elicitation', false],
    [{ elicitation: { url: {} } }, 'elicitation.url', true],
    [{ elicitation: { form: {}, url: {} } }, 'elicitation', true],
    [{ sampling: {} }, 'sampling', true],
    [{ sampling: {} }, 'sampling.tools', false],
    [{ sampling: { tools: {} } }, 'sampling.tools', true],
    [{ roots: { listChanged: true } }, 'roots', true],
    [{ roots: true }, 'roots', false],
    [{}, 'sampling', false],
  ] as const)('%j declares %s: %s', (caps, capability, expected) => {
    expect(clientDeclares(caps as ClientCapabilities, capability)).toBe(expected);
  });

  it('names what a -32021 must list', () => {
    expect(
      capabilityNeededFor({
        method: 'sampling/createMessage',
        params: { messages: [], maxTokens: 1, toolChoice: { mode: 'auto' } },
      }),
    ).toEqual({ sampling: { tools: {} } });
    expect(capabilityNeededFor({ method: 'roots/list' })).toEqual({ roots: {} });
  });
});
