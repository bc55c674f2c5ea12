import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { McpConfigurationError, McpModule, type McpModuleOptions } from '../../src/index.js';
import { registryServerJson } from '../../src/core/index.js';
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
    expect(registryServerJson(minimal, { url: 'http://localhost:3000/mcp' })).toEqual({
      $schema: SCHEMA,
      name: 'io.github.someone/tiny',
      description: 'Tiny',
      version: '0.1.0',
      remotes: [{ type: 'streamable-http', url: 'http://localhost:3000/mcp' }],
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
