import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Logger, Module, type INestApplication } from '@nestjs/common';
import { MCPServer, McpModule, type McpModuleOptions } from '../../src/index.js';
import type { RequestStateStore } from '../../src/core/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { transferTool } from '../support/transfer-tool.js';

const SECRET = 'shared-secret-of-the-fleet-0123456789abcdef';
const NEW_SECRET = 'rotated-secret-of-the-fleet-0123456789abcdef';
const CAPS = { clientCapabilities: { elicitation: {} } };
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const COLOR_SCHEMA = { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] };

/** Stands in for @nestjs/config's ConfigService: the secret comes from configuration, not from code. */
@Injectable()
class FakeConfigService {
  private readonly values: Record<string, string> = { MCP_REQUEST_STATE_SECRET: SECRET };
  get(key: string): string | undefined {
    return this.values[key];
  }
}

@Module({ providers: [FakeConfigService], exports: [FakeConfigService] })
class FakeConfigModule {}

/** Stands in for Redis (`SET id 1 NX PXAT expiresAt`): one store the instances share. */
class SharedStore implements RequestStateStore {
  readonly ids = new Set<string>();
  async consume(id: string): Promise<boolean> {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    return true;
  }
}

/** One instance of the app: the same tools, its own Nest container and kernel. */
async function instance(options: Partial<McpModuleOptions> = {}): Promise<INestApplication> {
  const app = await createApp([McpModule.forRoot({ name: 'fleet', version: '1.0.0', ...options })]);
  register(app);
  return app;
}

function register(app: INestApplication): void {
  const server = app.get(MCPServer);
  server.registerTool('profile', 'Asks a name, then a colour', { type: 'object' }, async (_args, _responses, ctx) => {
    const name = await ctx.elicit('Name?', NAME_SCHEMA, { key: 'name' });
    const color = await ctx.elicit('Colour?', COLOR_SCHEMA, { key: 'color' });
    return `${name.content!.name}/${color.content!.color}`;
  });
  server.addTool(transferTool(NAME_SCHEMA));
}

const name = { name: { action: 'accept', content: { name: 'Alice' } } };
const color = { color: { action: 'accept', content: { color: 'blue' } } };

async function roundOne(app: INestApplication, tool = 'profile'): Promise<string> {
  const res = await createMcpTestClient(app).post(mcpMessage('tools/call', { name: tool, arguments: {} }, CAPS));
  expect(res.status).toBe(200);
  expect(res.body.result.resultType).toBe('input_required');
  return res.body.result.requestState;
}

/** Round two of `profile`: the name answered, with the state a round one returned. */
function answerName(app: INestApplication, requestState: string) {
  return createMcpTestClient(app).post(
    mcpMessage('tools/call', { name: 'profile', arguments: {}, inputResponses: name, requestState }, CAPS),
  );
}

describe('input_required across instances', () => {
  const apps: INestApplication[] = [];
  const track = async (app: Promise<INestApplication>) => {
    const started = await app;
    apps.push(started);
    return started;
  };
  afterAll(() => Promise.all(apps.map((app) => app.close())));

  it('completes a call whose rounds go to two instances sharing a secret (one configured through forRootAsync)', async () => {
    const a = await track(instance({ requestState: { secret: SECRET } }));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const b = await track(
      createApp([
        McpModule.forRootAsync({
          imports: [FakeConfigModule],
          inject: [FakeConfigService],
          useFactory: (config: FakeConfigService) => ({
            name: 'fleet',
            version: '1.0.0',
            requestState: { secret: config.get('MCP_REQUEST_STATE_SECRET') },
          }),
        }),
      ]),
    );
    // The factory's secret reached the kernel: no per-process-key warning.
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
    register(b);
    const s1 = await roundOne(a);
    const r2 = await answerName(b, s1);
    expect(r2.status).toBe(200);
    expect(r2.body.result.inputRequests).toEqual({ color: expect.objectContaining({ method: 'elicitation/create' }) });
    const r3 = await createMcpTestClient(a).post(
      mcpMessage(
        'tools/call',
        { name: 'profile', arguments: {}, inputResponses: color, requestState: r2.body.result.requestState },
        CAPS,
      ),
    );
    expect(r3.status).toBe(200);
    expect(r3.body.result.content).toEqual([{ type: 'text', text: 'Alice/blue' }]);
  });

  it('cannot complete across instances with per-process keys, and warns about it at start-up', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const a = await track(instance());
      const b = await track(instance());
      expect(warn).toHaveBeenCalledWith(
        expect.stringContaining('Deployments with several instances need a shared secret'),
      );
      const s1 = await roundOne(a);
      const res = await answerName(b, s1);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: -32602, data: { detail: 'signature' } });
      expect((await answerName(a, s1)).status).toBe(200);
    } finally {
      warn.mockRestore();
    }
  });

  it('rotates keys: a new first key signs, the old one still verifies until it is removed', async () => {
    const old = await track(instance({ requestState: { secret: SECRET } }));
    const rotating = await track(instance({ requestState: { secret: [NEW_SECRET, SECRET] } }));
    const rotated = await track(instance({ requestState: { secret: [NEW_SECRET] } }));

    // In flight during the rollout: issued under the old key, finished on an instance that has both.
    const fromOld = await roundOne(old);
    expect((await answerName(rotating, fromOld)).status).toBe(200);
    // New state is signed with the new key: instances that only know it accept it, old ones do not.
    const fromRotating = await roundOne(rotating);
    expect((await answerName(rotated, fromRotating)).status).toBe(200);
    const stale = await answerName(old, fromRotating);
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe(-32602);
    // Once the old key is gone, its state is refused as signed with an unknown key.
    const retired = await answerName(rotated, fromOld);
    expect(retired.status).toBe(400);
    expect(retired.body.error).toMatchObject({
      code: -32602,
      data: { reason: 'invalid_request_state', detail: 'signature' },
    });
  });

  it('rejects an expired state (requestState.ttlMs)', async () => {
    const app = await track(instance({ requestState: { secret: SECRET, ttlMs: 1 } }));
    const s1 = await roundOne(app);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const res = await answerName(app, s1);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: -32602,
      message: 'Invalid or expired requestState',
      data: { reason: 'invalid_request_state', detail: 'expired' },
    });
  });

  it('enforces single use across instances through a shared store', async () => {
    const store = new SharedStore();
    const a = await track(instance({ requestState: { secret: SECRET, store } }));
    const b = await track(instance({ requestState: { secret: SECRET, store } }));
    const s1 = await roundOne(a, 'transfer');
    const retry = { inputResponses: { confirm: name.name }, requestState: s1 };
    const first = await createMcpTestClient(b).post(
      mcpMessage('tools/call', { name: 'transfer', arguments: {}, ...retry }, CAPS),
    );
    expect(first.status).toBe(200);
    expect(first.body.result.content).toEqual([{ type: 'text', text: 'transferred' }]);
    const replay = await createMcpTestClient(a).post(
      mcpMessage('tools/call', { name: 'transfer', arguments: {}, ...retry }, CAPS),
    );
    expect(replay.status).toBe(400);
    expect(replay.body.error).toMatchObject({ code: -32602, data: { reason: 'request_state_replayed' } });
    expect(store.ids.size).toBe(1);
  });

  it('refuses a secret shorter than 32 characters at start-up', async () => {
    await expect(
      createApp([McpModule.forRoot({ name: 'fleet', version: '1.0.0', requestState: { secret: 'too-short' } })]),
    ).rejects.toThrow(/at least 32/);
  });
});
