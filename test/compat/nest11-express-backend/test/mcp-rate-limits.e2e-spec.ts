// McpThrottlerGuard as the docs set it up for several instances: @nestjs/throttler with the Redis storage of
// @nest-lab/throttler-storage-redis on the machine's Redis, two app instances sharing one budget per caller.
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { INestApplication, Injectable, Module, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Throttle, ThrottlerModule } from '@nestjs/throttler';
import { randomUUID } from 'node:crypto';
import { McpModule, McpThrottlerGuard, Tool } from 'nestjs-mcp';
import { createMcpTestClient } from 'nestjs-mcp/testing';

const TIMEOUT = 30_000;

@Injectable()
@UseGuards(McpThrottlerGuard)
class QuoteTools {
  @Tool({ name: 'quote', description: 'Quotes a price' })
  @Throttle({ default: { limit: 2, ttl: 60000 } })
  quote(): string {
    return 'quoted';
  }
}

@Module({
  imports: [
    ThrottlerModule.forRoot({
      throttlers: [{ name: 'default', ttl: 60000, limit: 100 }],
      storage: new ThrottlerStorageRedisService(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
    }),
    McpModule.forRoot({
      name: 'quotes',
      version: '1.0.0',
      auth: {
        resource: 'http://127.0.0.1/mcp',
        verify: (token: string) => (token.startsWith('user-') ? { sub: token } : null),
      },
    }),
  ],
  providers: [QuoteTools],
})
class QuotesModule {}

async function instance(): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [QuotesModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}

describe('McpThrottlerGuard on two instances sharing @nest-lab/throttler-storage-redis', () => {
  let a: INestApplication;
  let b: INestApplication;
  // Fresh callers each run: the budgets live in the shared Redis for a minute.
  const ada = `user-ada-${randomUUID()}`;
  const bob = `user-bob-${randomUUID()}`;
  const quote = (app: INestApplication, user: string) =>
    createMcpTestClient(app, { headers: { authorization: `Bearer ${user}` } }).callTool('quote');

  beforeAll(async () => {
    [a, b] = await Promise.all([instance(), instance()]);
  }, TIMEOUT);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it(
    'counts one budget per caller across the instances: two calls on A and one on B give the 429 on B',
    async () => {
      expect((await quote(a, ada)).result).toMatchObject({ content: [{ type: 'text', text: 'quoted' }] });
      expect((await quote(a, ada)).result).toMatchObject({ content: [{ type: 'text', text: 'quoted' }] });
      const refused = await quote(b, ada);
      expect(refused.status).toBe(429);
      expect(refused.error).toMatchObject({ code: -32023, data: { limit: 2, remaining: 0 } });
      const retryAfterMs = (refused.error!.data as { retryAfterMs: number }).retryAfterMs;
      expect(Number.isInteger(retryAfterMs) && retryAfterMs > 0).toBe(true);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['ratelimit-limit']).toBe('2');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      // Another principal has a budget of its own, on either instance.
      expect((await quote(b, bob)).result).toMatchObject({ content: [{ type: 'text', text: 'quoted' }] });
    },
    TIMEOUT,
  );

  it(
    'never refuses tools/list for a tool over its limit',
    async () => {
      const list = await createMcpTestClient(b, { headers: { authorization: `Bearer ${ada}` } }).listTools();
      expect(list.status).toBe(200);
      expect(list.result!.tools.map((tool) => tool.name)).toEqual(['quote']);
    },
    TIMEOUT,
  );
});
