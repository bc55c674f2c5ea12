import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import fc from 'fast-check';
import { posix } from 'node:path';
import { ErrorCode, MCPServer } from '../../src/index.js';
import { createAuthApp } from '../support/auth-tokens.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

const SECRET = 'SALARIES-2026';
/** What a naive file-serving template handler reads: it resolves the decoded path and ignores case, as some stores do. */
const FILES: Record<string, string> = {
  '/payroll.csv': SECRET,
  '/hr/payroll.csv': SECRET,
  '/readme.txt': 'hello',
  '/docs/guide.txt': 'guide',
};
const readNaively = (base: string, path: string) => FILES[posix.resolve(base, path).toLowerCase()] ?? 'no such file';
const TOKENS: Record<string, object> = {
  files: { sub: 'reader', scope: 'files:read' },
  hr: { sub: 'clerk', scope: 'files:read hr:read' },
};

describe('Protected exact resources cannot be read through a broader template (issue 17, item 4)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createAuthApp({ scopesSupported: ['files:read', 'hr:read'], verify: (token: string) => TOKENS[token] });
    const server = app.get(MCPServer);
    server.addResource({
      uri: 'file:///payroll.csv',
      name: 'payroll',
      requiredScopes: ['hr:read'],
      handler: () => SECRET,
    });
    server.addResource({
      uri: 'https://intranet.example.com/hr/payroll.csv',
      name: 'payroll (web)',
      requiredScopes: ['hr:read'],
      handler: () => SECRET,
    });
    server.addResourceTemplate({
      uriTemplate: 'file:///{path}',
      name: 'files',
      requiredScopes: ['files:read'],
      handler: (_u, v) => readNaively('/', v.path),
    });
    server.addResourceTemplate({
      uriTemplate: 'file:///docs/{+rest}',
      name: 'docs',
      requiredScopes: ['files:read'],
      handler: (_u, v) => readNaively('/docs', v.rest),
    });
    server.addResourceTemplate({
      uriTemplate: 'https://intranet.example.com/{+path}',
      name: 'intranet',
      requiredScopes: ['files:read'],
      handler: (_u, v) => readNaively('/', v.path),
    });
  });
  afterAll(() => app.close());

  const read = (uri: string, token: string) =>
    createMcpTestClient(app).post(mcpMessage('resources/read', { uri }), { authorization: `Bearer ${token}` });

  it('serves the template to its scope and the exact resource to its own', async () => {
    const readme = await read('file:///readme.txt', 'files');
    expect(readme.status).toBe(200);
    expect(readme.body.result.contents[0].text).toBe('hello');
    const guide = await read('file:///docs/guide.txt', 'files');
    expect(guide.status).toBe(200);
    expect(guide.body.result.contents[0].text).toBe('guide');
    const payroll = await read('file:///payroll.csv', 'hr');
    expect(payroll.status).toBe(200);
    expect(payroll.body.result.contents[0].text).toBe(SECRET);
  });

  it.each([
    ['a percent-encoded unreserved character', 'file:///%70ayroll.csv'],
    ['a lower-case percent-encoding of a dot', 'file:///payroll%2ecsv'],
    ['an upper-case scheme', 'FILE:///payroll.csv'],
    ['a dot segment', 'file:///./payroll.csv'],
    ['a parent segment', 'file:///docs/../payroll.csv'],
    ['an encoded parent segment', 'file:///docs/%2E%2E/payroll.csv'],
    ['an upper-case host', 'https://INTRANET.Example.COM/hr/payroll.csv'],
    ['another path case', 'file:///PAYROLL.csv'],
    ['a doubled slash', 'https://intranet.example.com/hr//payroll.csv'],
    ['an encoded slash inside a reserved variable', 'https://intranet.example.com/hr%2Fpayroll.csv'],
  ])('needs hr:read for %s', async (_label, uri) => {
    const res = await read(uri, 'files');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe(ErrorCode.InsufficientScope);
    expect(res.body.error.data.requiredScopes).toContain('hr:read');
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    const granted = await read(uri, 'hr');
    expect(granted.status).toBe(200);
    expect(granted.body.result.contents[0].text).toBe(SECRET);
  });

  it.each([
    ['an encoded parent segment inside a variable', 'file:///docs/..%2Fpayroll.csv'],
    ['an encoded backslash parent segment', 'file:///docs/..%5Cpayroll.csv'],
    ['a variable that is a parent segment', 'file:///%2E%2E%2Fhr%2Fpayroll.csv'],
    ['a variable that is an absolute path', 'file:///%2Fpayroll.csv'],
    ['a reserved variable that is an absolute path', 'file:///docs//payroll.csv'],
    ['a variable that is a Windows path', 'file:///C:%5Cpayroll.csv'],
  ])('matches nothing for %s', async (_label, uri) => {
    const res = await read(uri, 'hr');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(ErrorCode.InvalidParams);
    expect(res.body.error.message).toMatch(/^Resource not found/);
  });

  it('never hands a protected exact resource to a caller without its scope, however the URI is spelled (property)', async () => {
    const caseOf = (text: string) =>
      fc
        .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
        .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''));
    const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');
    const spelledChar = (c: string) =>
      fc.constantFrom(c, c.toUpperCase(), `%${hex(c).toUpperCase()}`, `%${hex(c)}`, `%${hex(c.toUpperCase())}`);
    const spelled = (text: string) => fc.tuple(...[...text].map(spelledChar)).map((parts) => parts.join(''));
    const separator = fc.constantFrom(
      '/',
      '/',
      '/',
      '//',
      '%2F',
      '%2f',
      '/./',
      '/%2E/',
      '/zz/../',
      '/zz/%2e%2E/',
      '\\',
      '%5C',
    );
    const path = (segments: string[]) =>
      fc
        .tuple(...segments.map((s) => fc.tuple(separator, spelled(s))))
        .map((parts) => parts.map(([sep, seg]) => sep + seg).join(''));
    const uri = fc.oneof(
      fc.tuple(caseOf('file'), path(['payroll.csv'])).map(([scheme, p]) => `${scheme}://${p}`),
      fc.tuple(caseOf('file'), path(['docs', 'payroll.csv'])).map(([scheme, p]) => `${scheme}://${p}`),
      fc
        .tuple(caseOf('https'), caseOf('intranet.example.com'), path(['hr', 'payroll.csv']))
        .map(([scheme, host, p]) => `${scheme}://${host}${p}`),
    );
    let served = 0;
    await fc.assert(
      fc.asyncProperty(uri, async (candidate) => {
        const res = await read(candidate, 'files');
        if (res.status === 200) served++;
        expect(JSON.stringify(res.body)).not.toContain(SECRET);
        expect([200, 400, 403]).toContain(res.status);
      }),
      { numRuns: 300 },
    );
    // The generator reaches templates too (e.g. /docs/payroll.csv reads "no such file"), not only refusals.
    expect(served).toBeGreaterThan(0);
  }, 60_000);
});
