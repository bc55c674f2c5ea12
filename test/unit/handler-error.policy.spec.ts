import { jest } from '@jest/globals';
import { HandlerErrorPolicy, scrubMessage } from '../../src/server/failures/handler-error-policy.js';
import { CallGuard, DeadlineExceeded, GuardedCall } from '../../src/server/access/call-guard.js';
import type { Caller } from '../../src/server/access/caller-identity.js';
import { McpError, ToolError } from '../../src/index.js';

describe('scrubMessage', () => {
  it.each([
    [
      "ENOENT: no such file or directory, open '/srv/app/config/secret.json'",
      "ENOENT: no such file or directory, open '<path>'",
    ],
    ['failed at /home/deploy/app/dist/db.js:42:7', 'failed at <path>:42:7'],
    ['C:\\Users\\me\\app\\db.js broke', '<path> broke'],
    ['boom\n    at Object.<anonymous> (/srv/app/x.js:1:1)\n    at node:internal/main', 'boom'],
  ])('removes paths and stack lines: %s', (message, expected) => {
    expect(scrubMessage(message)).toBe(expected);
  });

  it.each(['see https://example.com/a/b/c for details', 'ratio 1/2/3', 'a/b/c relative', 'plain message'])(
    'leaves %s alone',
    (message) => {
      expect(scrubMessage(message)).toBe(message);
    },
  );
});

describe('HandlerErrorPolicy', () => {
  const context = { method: 'tools/call', name: 't', requestId: 1 };
  it('passes ToolError messages without logging them', () => {
    const log = jest.fn();
    expect(new HandlerErrorPolicy(true, () => 'id', log).clientMessage(new ToolError('City not found'), context)).toBe(
      'City not found',
    );
    expect(log).not.toHaveBeenCalled();
  });
  it('redacts and logs other errors under one reference', () => {
    const log = jest.fn();
    const error = new Error('secret');
    expect(new HandlerErrorPolicy(true, () => 'ref-1', log).clientMessage(error, context)).toBe(
      'Internal error (reference ref-1)',
    );
    expect(log).toHaveBeenCalledWith(error, { ...context, correlationId: 'ref-1' });
  });
});

/** A call under the guard, as the kernel's handler context is one. */
class TestCall extends GuardedCall {
  readonly caller: Caller = undefined;
}

describe('CallGuard', () => {
  it('never starts work whose signal is already aborted', async () => {
    const outer = new AbortController();
    outer.abort();
    const work = jest.fn(async () => 'ran');
    await expect(new CallGuard(0, 10).run(new TestCall(), { signal: outer.signal }, work, undefined)).rejects.toThrow(
      'Request cancelled',
    );
    expect(work).not.toHaveBeenCalled();
  });
  it('passes an McpError reason through, and frees its slot whatever happens', async () => {
    const guard = new CallGuard(50, 1);
    const outer = new AbortController();
    const never = () => new Promise(() => undefined);
    const pending = guard.run(new TestCall(), { signal: outer.signal }, never, undefined);
    outer.abort(new McpError(-32603, 'Server is shutting down'));
    await expect(pending).rejects.toThrow('Server is shutting down');
    await expect(guard.run(new TestCall(), undefined, never, undefined)).rejects.toBeInstanceOf(DeadlineExceeded);
    await expect(guard.run(new TestCall(), undefined, async () => 'ok', undefined)).resolves.toBe('ok');
    expect(guard.inFlight).toBe(0);
  });
  it('frees the slot of work answered synchronously, and of work that throws', async () => {
    const guard = new CallGuard(50, 1);
    expect(guard.run(new TestCall(), undefined, (arg: string) => arg, 'now')).toBe('now');
    const thrown = guard.run(
      new TestCall(),
      { aborted: false, onAbort: () => () => undefined },
      () => {
        throw new Error('boom');
      },
      undefined,
    );
    await expect(thrown).rejects.toThrow('boom');
    expect(guard.inFlight).toBe(0);
  });
  it('aborts the signal a handler read when the source aborts through onAbort, and unsubscribes once settled', async () => {
    const listeners = new Set<(reason: unknown) => void>();
    const source = {
      onAbort: (listener: (reason: unknown) => void) => (listeners.add(listener), () => listeners.delete(listener)),
    };
    const guard = new CallGuard(0, 5);
    let seen: AbortSignal | undefined;
    const pending = guard.run(
      new TestCall(),
      source,
      (_arg, call) => {
        seen = call.signal;
        return new Promise(() => undefined);
      },
      undefined,
    );
    expect(listeners.size).toBe(1);
    for (const listener of [...listeners]) listener(undefined);
    await expect(pending).rejects.toThrow('Request cancelled');
    expect(seen?.aborted).toBe(true);
    expect(listeners.size).toBe(0);
    expect(guard.inFlight).toBe(0);
  });
  it('hands a handler that reads its signal after the deadline an aborted signal', async () => {
    const guard = new CallGuard(20, 5);
    const call = new TestCall();
    const pending = guard.run(call, undefined, () => new Promise(() => undefined), undefined);
    await expect(pending).rejects.toBeInstanceOf(DeadlineExceeded);
    expect(call.signal.aborted).toBe(true);
    expect(call.signal.reason).toBeInstanceOf(DeadlineExceeded);
  });
});
