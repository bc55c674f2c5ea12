import 'reflect-metadata';
import request from 'supertest';
import { startFixture, type Fixture } from './fixture.js';
import { mcpHeaders } from '../../src/testing/index.js';

/** `1e400` parses as Infinity: refused with -32602 before any handler, as a non-integer id is. */
describe('non-finite numbers in arguments', () => {
  let fixture: Fixture;
  let seen: unknown[];

  beforeAll(async () => {
    fixture = await startFixture();
    seen = [];
    fixture.server.registerTool(
      'measure',
      'Takes a number',
      { type: 'object', properties: { n: { type: 'number' }, nested: { type: 'object' } } },
      (args: { n?: number }) => {
        seen.push(args.n);
        return `got ${String(args.n)}`;
      },
    );
  });
  afterAll(() => fixture.app.close());

  const raw = (args: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"measure","arguments":${args},` +
    `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`;

  it.each([
    ['a top-level 1e400', '{"n":1e400}'],
    ['a negative -1e400', '{"n":-1e400}'],
    ['a nested 1e999', '{"nested":{"list":[1,2,1e999]}}'],
  ])('%s is refused with -32602 and the handler never runs', async (_, args) => {
    const res = await request(fixture.app.getHttpServer())
      .post('/mcp')
      .set(mcpHeaders({ method: 'tools/call', params: { name: 'measure' } }))
      .send(raw(args));
    expect(res.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/not finite/) });
    expect(seen).toEqual([]);
  });

  it('a large finite number still reaches the tool', async () => {
    const res = await request(fixture.app.getHttpServer())
      .post('/mcp')
      .set(mcpHeaders({ method: 'tools/call', params: { name: 'measure' } }))
      .send(raw('{"n":1e300}'));
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'got 1e+300' }]);
  });
});
