import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import {
  McpConfigurationError,
  McpModule,
  McpRegistrationError,
  Tool,
  type McpModuleOptions,
} from '../../src/index.js';
import { McpRedisModule } from '../../src/redis/index.js';
import { createApp } from '../support/create-app.js';

async function startupError(imports: Parameters<typeof createApp>[0]): Promise<unknown> {
  try {
    const app = await createApp(imports);
    await app.close();
  } catch (error) {
    return error;
  }
  throw new Error('start-up succeeded');
}

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const auth = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'] };

/** Options that cannot work, each with the words its message must hold: the option's place and what to do. */
const BAD: Array<[what: string, options: Partial<McpModuleOptions>, message: RegExp]> = [
  [
    'a short requestState.secret',
    { requestState: { secret: 'short' } },
    /^requestState\.secret: .*at least 32 characters/,
  ],
  ['an empty requestState.secret list', { requestState: { secret: [] } }, /^requestState\.secret: give at least one/],
  ['requestState.ttlMs of 0', { requestState: { ttlMs: 0 } }, /^requestState\.ttlMs must be a positive integer/],
  ['limits.pageSize of 0', { limits: { pageSize: 0 } }, /^limits\.pageSize must be a positive integer/],
  ['listen.maxStreams of 0', { listen: { maxStreams: 0 } }, /^listen\.maxStreams must be a positive integer/],
  ['tasks.ttlMs of -1', { tasks: { ttlMs: -1 } }, /^tasks\.ttlMs must be a positive integer/],
  ['tasks.leaseMs of 500', { tasks: { leaseMs: 500 } }, /^tasks\.leaseMs must be an integer from 1000 to \d+ /],
  [
    'legacy.mode "sessionful"',
    { legacy: { mode: 'sessionful' as 'off' } },
    /legacy\.mode must be 'stateless', 'stateful' or 'off'/,
  ],
  [
    'legacy.sessions.streamLeaseMs of 0',
    { legacy: { mode: 'stateful', sessions: { streamLeaseMs: 0 } } },
    /^legacy\.sessions\.streamLeaseMs must be a positive integer/,
  ],
  [
    'lists.cache with a negative ttlMs',
    { lists: { cache: { lists: { ttlMs: -1 } } } },
    /cache ttlMs must be an integer >= 0/,
  ],
  [
    'auth without authorization servers',
    { auth: { ...auth, authorizationServers: [] } },
    /^auth\.authorizationServers needs/,
  ],
  [
    'auth.resource with a fragment',
    { auth: { ...auth, resource: 'https://mcp.example.com/mcp#x', verify: () => ({}) } },
    /^auth\.resource must not contain a fragment/,
  ],
  [
    'auth.jwt without keys',
    { auth: { ...auth, jwt: { issuer: 'https://auth.example.com' } } },
    /^auth\.jwt needs exactly one of jwksUri, jwks and secret/,
  ],
];

describe('Every start-up failure is an McpConfigurationError naming the option', () => {
  it.each(BAD)('%s', async (_what, options, message) => {
    const error = await startupError([
      McpModule.forRoot({ name: 'bad', version: '1.0.0', requestState: { secret: SECRET }, ...options }),
    ]);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toMatch(message);
  });

  it('a decorated tool that cannot be registered: McpRegistrationError, itself an McpConfigurationError', async () => {
    @Injectable()
    class BadTools {
      @Tool({ name: 'no spaces', description: 'Invalid name' })
      bad(): string {
        return '';
      }
    }
    @Module({ providers: [BadTools] })
    class BadModule {}
    const error = await startupError([McpModule.forRoot({ name: 'bad', version: '1.0.0' }), BadModule]);
    expect(error).toBeInstanceOf(McpRegistrationError);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toMatch(/^BadTools\.bad: Invalid tool name "no spaces"/);
  });

  it('McpRedisModule without a url or a connection', async () => {
    const error = await startupError([McpRedisModule.forRoot({})]);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toBe('McpRedisModule needs a "url", a "cluster" or a "connection"');
  });
});
