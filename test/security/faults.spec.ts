import 'reflect-metadata';
import { jest } from '@jest/globals';
import { mcpMessage, sseMessages } from '../../src/testing/index.js';
import { expectStillServing, openStream, startFixture, waitFor, type Fixture } from './fixture.js';

// Volume and timing tests: generous bounds for a loaded 2-core CI machine (they assert correctness, not speed).
jest.setTimeout(60_000);

// security.md §2.6: resource exhaustion and faults (rows R1-R13; R12 and R14 are in lifecycle.spec.ts, R15
// does not apply: nothing is built per request, see docs/security.md).
describe('security §2.6 exhaustion and faults (R rows)', () => {
  let fx: Fixture;
  const progress = (n: number, id: number | string = 1) =>
    mcpMessage('tools/call', { name: 'slowProgress', arguments: { n } }, { id, meta: { progressToken: `tok-${id}` } });
  const listen = (id: number) =>
    mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id });

  beforeAll(async () => {
    fx = await startFixture(
      {
        limits: { callTimeoutMs: 500 },
        http: { maxResponseBytes: 1024 * 1024, sseKeepAliveMs: 100 },
        listen: { maxStreams: 2 },
      },
      true,
    );
    fx.server.addResourceTemplate({ uriTemplate: 'mem://{a}{b}{c}', name: 'adjacent', handler: () => 'x' });
  });
  afterAll(() => fx.app.close());

  it('R1: 45,000 levels of nested arrays in arguments: no crash, a 200 or 4xx JSON-RPC answer', async () => {
    const deep = `${'['.repeat(45_000)}${']'.repeat(45_000)}`;
    const body = JSON.stringify(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'deep' } })).replace(
      '"text":"deep"',
      `"text":"deep","deep":${deep}`,
    );
    const res = await fx.mcp.post(body, {
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      'mcp-protocol-version': '2026-07-28',
    });
    expect(res.status).toBeLessThan(500);
    expect(res.body.jsonrpc).toBe('2.0');
    expect(res.body.id).toBe(1);
    await expectStillServing(fx);
  });

  it('R2: 100k keys and a 1 MB string in arguments are served', async () => {
    const keys = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    expect(
      (await fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'k', ...keys } }))).status,
    ).toBe(200);
    const res = await fx.mcp.post(
      mcpMessage('tools/call', { name: 'echo', arguments: { text: 's'.repeat(1_000_000) } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toHaveLength(1_000_000);
  });

  it('R3/V5: a catastrophic pattern cannot block the event loop (RE2)', async () => {
    // With a backtracking engine "a"*64 + "!" against ^(a+)+$ needs about 2^64 steps: this test would never end.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    try {
      const before = fx.calls();
      const results = await Promise.all([
        ...Array.from({ length: 4 }, () =>
          fx.mcp.post(mcpMessage('tools/call', { name: 'regex', arguments: { q: `${'a'.repeat(64)}!` } })),
        ),
        fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'alongside' } })),
      ]);
      for (const res of results.slice(0, 4)) expect(res.body.result.isError).toBe(true);
      expect(results[4].body.result.content[0].text).toBe('alongside');
      expect(fx.calls()).toBe(before + 1);
      expect(
        (await fx.mcp.post(mcpMessage('tools/call', { name: 'regex', arguments: { q: 'a'.repeat(64) } }))).body.result
          .content[0].text,
      ).toBe('matched');
    } finally {
      clearInterval(ticker);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it('R4/V4: a crafted URI against a template with adjacent variables is matched in linear time', async () => {
    // The RegExp these templates compiled to took 17 s for this 3 kB URI.
    const uri = `mem://${'a'.repeat(3_000)}/`;
    const res = await fx.mcp.post(mcpMessage('resources/read', { uri }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32602);
  });

  it('R5: a schema $ref to a network address is never fetched: registration fails', () => {
    expect(() =>
      fx.server.registerTool(
        'ssrf',
        'x',
        { type: 'object', properties: { a: { $ref: 'http://169.254.169.254/latest/meta-data' } } },
        () => 'x',
      ),
    ).toThrow(/invalid JSON Schema/);
    expect(fx.server.hasTool('ssrf')).toBe(false);
  });

  it('R6: a result over the response cap becomes -32603, never a 4 MB body', async () => {
    const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'big', arguments: { mb: 4 } }));
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(-32603);
    expect(res.body.error.message).toMatch(/response limit of 1048576 bytes/);
    expect(res.text.length).toBeLessThan(1_000);
    const under = await fx.mcp.post(mcpMessage('tools/call', { name: 'big', arguments: { mb: 0.5 } }));
    expect(under.status).toBe(200);
    expect(under.body.result.content[0].text).toHaveLength(512 * 1024);
  });

  it('R6: a notification over the cap is dropped; the stream and the result still arrive', async () => {
    fx.server.registerTool('loud', 'Logs 2 MB, then a line', { type: 'object' }, (_a, _i, ctx) => {
      ctx.log('info', 'x'.repeat(2 * 1024 * 1024));
      ctx.log('info', 'small');
      return 'done';
    });
    const res = await fx.mcp.post(
      mcpMessage(
        'tools/call',
        { name: 'loud', arguments: {} },
        { meta: { 'io.modelcontextprotocol/logLevel': 'info' } },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(10_000);
    expect(
      sseMessages(res.text).map(
        (m) =>
          (m.params as { data?: string } | undefined)?.data ??
          (m.result as { content: Array<{ text: string }> }).content[0].text,
      ),
    ).toEqual(['small', 'done']);
  });

  it('R7/V3: 200 concurrent requests all with id 1 each get their own answer', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: `c${i}` } }, { id: 1 })),
      ),
    );
    results.forEach((res, i) => {
      expect(res.body.id).toBe(1);
      expect(res.body.result.content[0].text).toBe(`c${i}`);
    });
  });

  it('R7/V3: two concurrent progress streams with the same id each see only their own progress', async () => {
    const streams = ['A', 'B'].map(() => openStream(fx.port, progress(5, 7)));
    await Promise.all(streams.map((s) => s.ended));
    const texts = streams.map((s) => s.messages());
    for (const messages of texts) {
      expect(messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(5);
      expect((messages.at(-1) as { result: { content: Array<{ text: string }> } }).result.content[0].text).toBe(
        'done 7',
      );
    }
    // Each stream's own progress notifications are strictly increasing 1..5: no events crossed over.
    for (const messages of texts) {
      const values = messages
        .filter((m) => m.method === 'notifications/progress')
        .map((m) => (m.params as { progress: number }).progress);
      expect(values).toEqual([1, 2, 3, 4, 5]);
    }
  });

  it('R8/V6: a client closing during a JSON call aborts the handler signal; nothing crashes', async () => {
    const aborted = fx.aborted();
    const stream = openStream(fx.port, mcpMessage('tools/call', { name: 'hang', arguments: {} }));
    await waitFor(() => fx.server.load.calls === 1, 5_000, 'the hang call to start');
    stream.close();
    await waitFor(() => fx.aborted() === aborted + 1, 5_000, 'the handler signal');
    await waitFor(() => fx.server.load.calls === 0, 5_000, 'in-flight back to 0');
    await expectStillServing(fx);
  });

  it('R9: a client closing an SSE stream mid-progress stops the handler; nothing more is written', async () => {
    const stream = openStream(fx.port, progress(200));
    await waitFor(() => stream.messages().length >= 3, 5_000, '3 progress events');
    stream.close();
    await waitFor(() => fx.server.load.calls === 0, 5_000, 'the handler to stop');
    await expectStillServing(fx);
  });

  it('R10/R11: a silent hanging handler turns into an SSE stream of keep-alive comments and ends at the deadline', async () => {
    const aborted = fx.aborted();
    const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'hang', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect((res.text.match(/^: keep-alive$/gm) ?? []).length).toBeGreaterThanOrEqual(2);
    expect(sseMessages(res.text)).toEqual([
      expect.objectContaining({
        id: 1,
        result: expect.objectContaining({
          isError: true,
          content: [{ type: 'text', text: 'Error: Request timed out: no result within 500 ms' }],
        }),
      }),
    ]);
    const json = await fx.mcp.post(mcpMessage('tools/call', { name: 'hang', arguments: {} }), {
      accept: 'application/json',
    });
    expect(json.status).toBe(200);
    expect(json.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error: Request timed out: no result within 500 ms' }],
    });
    expect(fx.aborted()).toBe(aborted + 2);
    expect(fx.server.load.calls).toBe(0);
  });

  it('R11/R13: listen streams get keep-alive comments; past the cap a listen gets -32603; closing one frees a slot', async () => {
    const first = openStream(fx.port, listen(1));
    const second = openStream(fx.port, listen(2));
    await waitFor(() => first.messages().length > 0 && second.messages().length > 0, 5_000, 'two acknowledgements');
    expect(first.messages()[0].method).toBe('notifications/subscriptions/acknowledged');
    const third = await fx.mcp.post(listen(3));
    expect(third.status).toBe(200);
    expect(third.body.error).toMatchObject({ code: -32603, message: 'Subscription limit reached' });
    await waitFor(() => (first.text().match(/^: keep-alive$/gm) ?? []).length >= 2, 5_000, 'two keep-alive comments');
    expect(await first.status).toBe(200);
    first.close();
    await waitFor(() => fx.server.load.subscriptions === 1, 5_000, 'the slot to free');
    const again = openStream(fx.port, listen(4));
    await waitFor(() => again.messages().length > 0, 5_000, 'a new acknowledgement');
    second.close();
    again.close();
    await waitFor(() => fx.server.load.subscriptions === 0, 5_000, 'all streams closed');
  });
});

describe('call limits', () => {
  it('refuses calls past limits.maxConcurrentCalls with a come-back-later -32023 and 429, not a queue', async () => {
    const fx = await startFixture({ limits: { maxConcurrentCalls: 3, callTimeoutMs: 0 } }, true);
    try {
      const hanging = Array.from({ length: 3 }, () =>
        openStream(fx.port, mcpMessage('tools/call', { name: 'hang', arguments: {} })),
      );
      await waitFor(() => fx.server.load.calls === 3, 5_000, 'three calls in flight');
      const res = await fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'x' } }));
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.error).toEqual({
        code: -32023,
        message: 'Server busy: too many concurrent requests, retry later',
        data: { retryAfterMs: 1000 },
      });
      hanging.forEach((s) => s.close());
      await waitFor(() => fx.server.load.calls === 0, 5_000, 'slots to free');
      await expectStillServing(fx);
    } finally {
      await fx.app.close();
    }
  });

  it('a deadline also bounds resources and prompts (-32603)', async () => {
    const fx = await startFixture({ limits: { callTimeoutMs: 200 } });
    try {
      fx.server.addResource({ uri: 'mem://slow', name: 'slow', handler: () => new Promise(() => undefined) });
      const res = await fx.mcp.post(mcpMessage('resources/read', { uri: 'mem://slow' }));
      expect(res.status).toBe(200);
      expect(res.body.error).toMatchObject({ code: -32603, message: 'Request timed out: no result within 200 ms' });
    } finally {
      await fx.app.close();
    }
  });

  it('no stray writes: an SSE call aborted by its client raises no write-after-end error', async () => {
    const fx = await startFixture({}, true);
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on('uncaughtException', onError);
    try {
      const stream = openStream(
        fx.port,
        mcpMessage('tools/call', { name: 'slowProgress', arguments: { n: 100 } }, { meta: { progressToken: 't' } }),
      );
      await waitFor(() => stream.messages().length >= 1, 5_000, 'first progress');
      stream.close();
      await waitFor(() => fx.server.load.calls === 0, 5_000, 'the call to end');
      expect(errors).toEqual([]);
    } finally {
      process.off('uncaughtException', onError);
      await fx.app.close();
    }
  });
});
