import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { McpConfigurationError, McpModule, type McpModuleOptions } from '../../src/index.js';
import { registryServerJson, type RegistryServerJsonOptions } from '../../src/core/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

/** The registry entry is written from the module's own options, in the shape of the registry's 2025-12-11 schema. */
const options: McpModuleOptions = {
  name: 'com.example/weather',
  version: '2.1.0',
  info: {
    title: 'Weather',
    description: 'Forecasts by city',
    websiteUrl: 'https://weather.example.com',
    icons: [{ src: 'https://weather.example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
  },
};
const URL = 'https://api.example.com/mcp';

const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

describe('registryServerJson', () => {
  it('writes the whole entry: remote, npm package, repository, publisher data', () => {
    const entry = registryServerJson(options, {
      url: URL,
      npm: { identifier: '@example/weather-mcp' },
      repository: { url: 'https://github.com/example/weather', source: 'github' },
      publisherProvided: { tool: 'nestjs-mcp' },
    });
    expect(entry).toEqual({
      $schema: SCHEMA,
      name: 'com.example/weather',
      description: 'Forecasts by city',
      version: '2.1.0',
      title: 'Weather',
      websiteUrl: 'https://weather.example.com',
      icons: [{ src: 'https://weather.example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
      repository: { url: 'https://github.com/example/weather', source: 'github' },
      remotes: [{ type: 'streamable-http', url: URL }],
      packages: [
        { registryType: 'npm', identifier: '@example/weather-mcp', version: '2.1.0', transport: { type: 'stdio' } },
      ],
      _meta: { 'io.modelcontextprotocol.registry/publisher-provided': { tool: 'nestjs-mcp' } },
    });
  });

  it('writes a remote-only and a package-only entry', () => {
    const minimal = { name: 'io.github.someone/tiny', version: '0.1.0', info: { description: 'Tiny' } };
    expect(registryServerJson(minimal, { url: 'https://tiny.example.com/mcp' })).toEqual({
      $schema: SCHEMA,
      name: 'io.github.someone/tiny',
      description: 'Tiny',
      version: '0.1.0',
      remotes: [{ type: 'streamable-http', url: 'https://tiny.example.com/mcp' }],
    });
    expect(registryServerJson(minimal, { npm: { identifier: 'tiny-mcp', version: '0.1.1' } })).toEqual({
      $schema: SCHEMA,
      name: 'io.github.someone/tiny',
      description: 'Tiny',
      version: '0.1.0',
      packages: [{ registryType: 'npm', identifier: 'tiny-mcp', version: '0.1.1', transport: { type: 'stdio' } }],
    });
  });

  it('refuses at once, naming every field, what the registry would refuse', () => {
    const bad = { name: 'weather', version: '^2.0.0', info: { title: '' } };
    expect(() => registryServerJson(bad, {})).toThrow(McpConfigurationError);
    const message = (() => {
      try {
        registryServerJson(bad, { url: 'ftp://example.com/mcp', npm: { identifier: 'w', version: 'latest' } });
      } catch (error) {
        return (error as Error).message;
      }
    })();
    for (const part of [
      'name "weather"',
      'info.description',
      'info.title',
      'version "^2.0.0"',
      'url "ftp:',
      '"latest"',
    ])
      expect(message).toContain(part);
    expect(() => registryServerJson(options, {})).toThrow(/say where the server runs/);
    expect(() => registryServerJson({ ...options, info: { description: 'x'.repeat(101) } }, { url: URL })).toThrow(
      /1 to 100 characters/,
    );
    for (const version of ['1.x', '1.*', '>=1.2.3', '~1.2.3', '1 || 2'])
      expect(() => registryServerJson({ ...options, version }, { url: URL })).toThrow(/not a range/);
    expect(registryServerJson({ ...options, version: '1.0.0-linux.x64' }, { url: URL }).version).toBe(
      '1.0.0-linux.x64',
    );
  });
});

/** A message's problems, one per field: the error joins them with "; ". */
function refusalsOf(server: McpModuleOptions, sources: RegistryServerJsonOptions): string[] {
  try {
    registryServerJson(server, sources);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigurationError);
    return (error as Error).message.replace(/^server\.json: /, '').split('; ');
  }
  return [];
}

/** An entry the registry takes: every optional field, each at a valid value. */
const VALID: RegistryServerJsonOptions = {
  url: URL,
  npm: { identifier: '@example/weather-mcp', version: '2.1.0' },
  repository: { url: 'https://github.com/example/weather', source: 'github', subfolder: 'servers/weather' },
  publisherProvided: { tool: 'nestjs-mcp' },
};
const icon = (fields: Record<string, unknown>) => ({
  ...options,
  info: { ...options.info, icons: [{ src: 'https://weather.example.com/icon.png', ...fields }] },
});
const within4k = (bytes: number) => ({ pad: 'x'.repeat(bytes - '{"pad":""}'.length) });

describe('registryServerJson refuses what the MCP Registry refuses', () => {
  const rows: Array<[what: string, server: McpModuleOptions, sources: RegistryServerJsonOptions, field: string]> = [
    [
      'an npm version range',
      options,
      { ...VALID, npm: { identifier: 'w', version: '^2.1.0' } },
      'npm.version "^2.1.0"',
    ],
    ['an npm wildcard version', options, { ...VALID, npm: { identifier: 'w', version: '2.x' } }, 'npm.version "2.x"'],
    ['an npm hyphen range', options, { ...VALID, npm: { identifier: 'w', version: '1.0.0 - 2.0.0' } }, 'npm.version'],
    ['npm "latest"', options, { ...VALID, npm: { identifier: 'w', version: 'latest' } }, 'npm.version "latest"'],
    ['an npm name with a space', options, { ...VALID, npm: { identifier: 'weather mcp' } }, 'npm.identifier'],
    ['an icon src that is not a URI', icon({ src: 'icon.png' }), VALID, 'info.icons[0].src "icon.png"'],
    ['an icon src over http', icon({ src: 'http://weather.example.com/i.png' }), VALID, 'info.icons[0].src'],
    ['an icon src over 255 characters', icon({ src: `https://e.com/${'i'.repeat(242)}` }), VALID, 'info.icons[0].src'],
    ['an icon MIME type not listed', icon({ mimeType: 'image/gif' }), VALID, 'info.icons[0].mimeType "image/gif"'],
    ['icon sizes not WxH', icon({ sizes: ['big'] }), VALID, 'info.icons[0].sizes'],
    ['an icon theme', icon({ theme: 'blue' }), VALID, 'info.icons[0].theme'],
    [
      'a websiteUrl that is not a URI',
      { ...options, info: { ...options.info, websiteUrl: 'weather.example.com' } },
      VALID,
      'info.websiteUrl',
    ],
    [
      'a websiteUrl over http',
      { ...options, info: { ...options.info, websiteUrl: 'http://weather.example.com' } },
      VALID,
      'info.websiteUrl',
    ],
    [
      'a repository URL that is not a URI',
      options,
      { ...VALID, repository: { url: 'not a url', source: 'github' } },
      'repository.url "not a url"',
    ],
    [
      'a repository without source',
      options,
      { ...VALID, repository: { url: 'https://github.com/example/weather' } as never },
      'repository.source undefined',
    ],
    [
      'a repository on another forge',
      options,
      { ...VALID, repository: { url: 'https://bitbucket.org/e/w', source: 'bitbucket' } },
      'repository.source "bitbucket"',
    ],
    [
      'a GitHub URL that is no repository',
      options,
      { ...VALID, repository: { url: 'https://github.com/example', source: 'github' } },
      'repository.url',
    ],
    [
      'a subfolder that climbs',
      options,
      { ...VALID, repository: { ...VALID.repository!, subfolder: '../other' } },
      'repository.subfolder',
    ],
    [
      'publisher data over 4 KB',
      options,
      { ...VALID, publisherProvided: within4k(4097) },
      'publisherProvided is 4097 bytes',
    ],
    [
      'publisher data over 4 KB once escaped as the registry does',
      options,
      { ...VALID, publisherProvided: { html: '<'.repeat(1000) } },
      'publisherProvided is 6011 bytes',
    ],
    [
      'publisher data that is not an object',
      options,
      { ...VALID, publisherProvided: [] as never },
      'publisherProvided must be an object',
    ],
    [
      'a remote on localhost',
      options,
      { ...VALID, url: 'https://localhost:3000/mcp' },
      'url "https://localhost:3000/mcp"',
    ],
    [
      'a remote over http',
      options,
      { ...VALID, url: 'http://api.example.com/mcp' },
      'url "http://api.example.com/mcp"',
    ],
    [
      'a templated remote',
      options,
      { ...VALID, url: 'https://{tenant}.example.com/mcp' },
      'url "https://{tenant}.example.com/mcp"',
    ],
    ['a name part ending in a dot', { ...options, name: 'com.example./weather' }, VALID, 'name "com.example./weather"'],
    ['a title of white space', { ...options, info: { ...options.info, title: '   ' } }, VALID, 'info.title'],
    ['a version "latest"', { ...options, version: 'latest' }, VALID, 'version "latest"'],
  ];

  it.each(rows)('refuses %s, naming the field', (_what, server, sources, field) => {
    const refusals = refusalsOf(server, sources);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain(field);
  });

  it('names every offending field in one error', () => {
    const server = {
      name: 'weather',
      version: '^2.0.0',
      info: { title: '', websiteUrl: 'nope', icons: [{ src: 'x', mimeType: 'image/gif' }] },
    };
    const refusals = refusalsOf(server, {
      url: 'http://localhost/mcp',
      npm: { identifier: 'a b', version: '1.x' },
      repository: { url: 'nope' } as never,
      publisherProvided: within4k(5000),
    });
    const fields = ['name', 'info.description', 'info.title', 'version', 'info.websiteUrl', 'info.icons[0].src']
      .concat(['info.icons[0].mimeType', 'url', 'npm.identifier', 'npm.version', 'repository.source'])
      .concat(['repository.url', 'publisherProvided']);
    expect(refusals.map((refusal) => refusal.split(' ')[0])).toEqual(fields);
  });

  it('writes an entry the registry takes: every field at a valid value, limits included', () => {
    const server = {
      ...options,
      version: '1.0.0-linux.x64',
      info: {
        ...options.info,
        title: 't'.repeat(100),
        icons: [
          {
            src: `https://e.com/${'i'.repeat(241)}`,
            mimeType: 'image/svg+xml',
            sizes: ['any'],
            theme: 'dark' as const,
          },
          { src: 'https://weather.example.com/icon.webp', mimeType: 'image/webp', sizes: ['48x48', '96x96'] },
        ],
      },
    };
    const sources = {
      ...VALID,
      repository: { url: 'https://gitlab.com/example/group/weather', source: 'gitlab' },
      publisherProvided: within4k(4096),
    };
    expect(refusalsOf(server, sources)).toEqual([]);
    expect(registryServerJson(server, sources)).toMatchObject({ version: '1.0.0-linux.x64', title: 't'.repeat(100) });
  });
});

describe.each(HTTP_ADAPTERS)('server.json and the Server Card agree on %s', (adapter) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ ...options, http: { serverCard: { url: URL } } })], [], adapter);
  });
  afterAll(() => app.close());

  it('names the same server, version, title, description and remote as the card the endpoint serves', async () => {
    const card = JSON.parse((await request(app.getHttpServer()).get('/mcp/server-card').set('host', '127.0.0.1')).text);
    const entry = registryServerJson(options, { url: card.remotes[0].url });
    for (const field of ['name', 'version', 'title', 'description', 'websiteUrl', 'icons', 'remotes'])
      expect([field, entry[field]]).toEqual([field, card[field]]);
  });
});
