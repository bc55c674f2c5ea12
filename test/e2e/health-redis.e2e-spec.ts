import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import request from 'supertest';
import { McpRedisHealthIndicator } from '../../examples/observability/redis.health.js';
import { McpRedisBackends, McpRedisConnections, McpRedisModule } from '../../src/redis/index.js';
import { Test } from '@nestjs/testing';
import { until } from '../support/redis-fleet.js';
import { RedisServerProcess, testKeyPrefix } from '../support/redis-server.js';

// Real Redis servers, started, killed and restarted, on a machine shared with other work.
jest.setTimeout(30_000);

@Controller('health')
class RedisHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly redis: McpRedisHealthIndicator,
  ) {}

  @Get('redis')
  @HealthCheck()
  check() {
    return this.health.check([() => this.redis.isHealthy()]);
  }
}

describe('examples/observability: a terminus indicator for the Redis of nestjs-mcp/redis', () => {
  let redis: RedisServerProcess;
  let app: INestApplication;

  beforeAll(async () => {
    redis = await RedisServerProcess.onFreePort();
    await redis.start();
    const moduleRef = await Test.createTestingModule({
      imports: [
        TerminusModule,
        McpRedisModule.forRoot({ url: redis.url, keyPrefix: testKeyPrefix(), commandTimeoutMs: 300 }),
      ],
      controllers: [RedisHealthController],
      providers: [McpRedisHealthIndicator],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    await until(() => app.get(McpRedisBackends).listening, 'subscribed');
  });

  afterAll(async () => {
    await app?.close();
    await redis.kill();
  });

  it('reports up while Redis answers, down (503) while it is away, and up again once it is back', async () => {
    const up = await request(app.getHttpServer()).get('/health/redis').expect(200);
    expect(up.body.details.redis.status).toBe('up');

    await redis.kill();
    const down = await request(app.getHttpServer()).get('/health/redis').expect(503);
    expect(down.body.details.redis.status).toBe('down');
    expect(down.body.details.redis.message).toMatch(/^Redis is unavailable \(PING\)/);

    await redis.start();
    await until(
      () => app.get(McpRedisBackends).listening && app.get(McpRedisConnections).ready,
      'subscribed and connected again',
    );
    expect((await request(app.getHttpServer()).get('/health/redis').expect(200)).body.details.redis.status).toBe('up');
  });
});
