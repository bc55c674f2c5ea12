import 'reflect-metadata';
import { McpConfigurationError } from '../../src/index.js';
import { startFixture, type Fixture } from './fixture.js';

/** docs/apps.md: a `csp` list holds origins; anything that widens the view's policy beyond one is refused. */
describe('MCP Apps: the CSP lists hold origins only', () => {
  let fixture: Fixture;
  let n = 0;

  beforeAll(async () => {
    fixture = await startFixture();
  });
  afterAll(() => fixture.app.close());

  const register = (connectDomains: string[]) => () =>
    fixture.server.addUiResource({
      uri: `ui://csp/view-${++n}.html`,
      name: 'view',
      html: '<p></p>',
      csp: { connectDomains },
    });

  it.each([
    '*',
    'https:',
    'data:',
    'blob:',
    'javascript:alert(1)',
    "'self'",
    "'unsafe-eval'",
    'https://*',
    'ftp://files.example.com',
    'https://a.example.com; script-src *',
  ])('refuses %s at registration', (source) => {
    expect(register([source])).toThrow(McpConfigurationError);
    expect(register([source])).toThrow(/must be a list of origins/);
  });

  it.each([
    'https://api.example.com',
    'wss://live.example.com:8443',
    'https://*.cdn.example.com',
    'http://localhost:3000/api/',
  ])('accepts the origin %s', (source) => {
    expect(register([source])).not.toThrow();
  });
});
