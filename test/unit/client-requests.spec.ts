import type { JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import type { InputRequests } from '../../src/protocol/mcp-types.js';
import { ClientInputError, ClientRequests } from '../../src/server/legacy/client-requests.js';
import { InProcessReplyRouter, ReplyTimeout } from '../../src/server/legacy/reply-router.js';

const ELICIT: InputRequests = {
  user_name: {
    method: 'elicitation/create',
    params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
  },
};
const BOTH: InputRequests = { ...ELICIT, client_roots: { method: 'roots/list', params: {} } };
const never = new AbortController().signal;

describe('ClientRequests: server→client requests without a session', () => {
  let router: InProcessReplyRouter;
  let requests: ClientRequests;
  beforeEach(() => {
    router = new InProcessReplyRouter();
    requests = new ClientRequests({
      router,
      timeoutMs: 5_000,
      server: 's',
      maxWaiting: 2,
      maxWaitingPerCaller: 2,
      maxReplyBytes: 1024,
    });
  });
  afterEach(() => router.close());

  /** A client that answers every request it sees on its stream by posting the reply to the endpoint. */
  const answering = (owner: string | undefined, answer: (request: JsonRpcRequest) => Record<string, unknown>) => {
    const seen: JsonRpcRequest[] = [];
    const stream = (request: JsonRpcRequest) => {
      seen.push(request);
      setImmediate(() => void requests.acceptReply({ jsonrpc: '2.0', id: request.id, ...answer(request) }, owner));
      return true;
    };
    return { seen, stream };
  };

  it('sends each input request as a JSON-RPC request with a unique srv- id and returns the answers under their keys', async () => {
    const owner = undefined;
    const client = answering(owner, (r) => ({
      result: r.method === 'roots/list' ? { roots: [] } : { action: 'accept', content: { name: 'Ada' } },
    }));
    const answers = await requests.ask(BOTH, owner, client.stream, never);
    expect(answers).toEqual({ user_name: { action: 'accept', content: { name: 'Ada' } }, client_roots: { roots: [] } });
    expect(client.seen.map((r) => r.method)).toEqual(['elicitation/create', 'roots/list']);
    expect(client.seen.every((r) => typeof r.id === 'string' && /^srv-[0-9a-f-]{36}$/.test(r.id))).toBe(true);
    expect(new Set(client.seen.map((r) => r.id)).size).toBe(2);
    expect(client.seen[0].params).toEqual(ELICIT.user_name.params);
    expect(router.size).toBe(0);
    expect(requests.size).toBe(0);
  });

  it('ends with ClientInputError when the client answers with an error, withdrawing the rest', async () => {
    const owner = undefined;
    const client = answering(owner, (r) =>
      r.method === 'roots/list' ? { error: { code: -32601, message: 'Method not found' } } : {},
    );
    await expect(requests.ask(BOTH, owner, client.stream, never)).rejects.toThrow(
      'Error: the client does not support roots/list (it answered -32601 Method not found)',
    );
    expect(router.size).toBe(0);
  });

  it('ends with ClientInputError at the deadline, leaving nothing behind', async () => {
    const quick = new ClientRequests({
      router,
      timeoutMs: 20,
      server: 's',
      maxWaiting: 2,
      maxWaitingPerCaller: 2,
      maxReplyBytes: 1024,
    });
    const error = await quick.ask(ELICIT, 'o', () => true, never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientInputError);
    expect((error as Error).message).toMatch(/did not answer elicitation\/create within 20 ms/);
    expect((error as Error).cause).toBeInstanceOf(ReplyTimeout);
    expect(router.size).toBe(0);
    expect(quick.size).toBe(0);
  });

  it('withdraws every request when the call is aborted', async () => {
    const controller = new AbortController();
    const sent: JsonRpcRequest[] = [];
    const asking = requests.ask(BOTH, 'o', (r) => sent.push(r) > 0, controller.signal).catch((e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    expect(router.size).toBe(2);
    controller.abort();
    await asking;
    expect(router.size).toBe(0);
    expect(await requests.acceptReply({ jsonrpc: '2.0', id: sent[0].id, result: { action: 'cancel' } }, 'o')).toBe(
      'unknown',
    );
  });

  it('bounds the calls waiting at once: the excess ends at once, without asking', async () => {
    const sent: JsonRpcRequest[] = [];
    const controller = new AbortController();
    const first = requests.ask(ELICIT, 'o', (r) => sent.push(r) > 0, controller.signal).catch(() => undefined);
    const second = requests.ask(ELICIT, 'o', (r) => sent.push(r) > 0, controller.signal).catch(() => undefined);
    await expect(requests.ask(ELICIT, 'o', (r) => sent.push(r) > 0, never)).rejects.toThrow(
      /too many calls are waiting/,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(2);
    controller.abort();
    await Promise.all([first, second]);
    expect(requests.size).toBe(0);
  });

  it('ends with ClientInputError when the router closes (shutdown), never another error', async () => {
    const asking = requests.ask(ELICIT, 'o', () => true, never).catch((e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    await router.close();
    const error = await asking;
    expect(error).toBeInstanceOf(ClientInputError);
    expect((error as Error).message).toMatch(/stopped waiting for the answer to elicitation\/create/);
    expect(requests.size).toBe(0);
  });

  it('refuses a call without a stream to ask on', async () => {
    await expect(requests.ask(ELICIT, 'o', undefined, never)).rejects.toThrow(/cannot carry requests to the client/);
  });

  it('refuses forged, malformed and oversized replies without touching the waiting request', async () => {
    const sent: JsonRpcRequest[] = [];
    const asking = requests.ask(ELICIT, 'alice', (r) => sent.push(r) > 0, never);
    await new Promise((resolve) => setImmediate(resolve));
    const id = sent[0].id;
    expect(await requests.acceptReply({ jsonrpc: '2.0', id, result: { action: 'decline' } }, 'mallory')).toBe(
      'forbidden',
    );
    expect(
      await requests.acceptReply({ jsonrpc: '2.0', id: 'srv-forged', result: { action: 'decline' } }, 'alice'),
    ).toBe('unknown');
    expect(
      await requests.acceptReply(
        { jsonrpc: '2.0', id, result: { action: 'accept', content: { name: 'x'.repeat(2000) } } },
        'alice',
      ),
    ).toBe('too-large');
    expect(await requests.acceptReply({ jsonrpc: '2.0', id, result: 'yes' }, 'alice')).toBe('malformed');
    expect(
      await requests.acceptReply({ jsonrpc: '2.0', id, result: {}, error: { code: 1, message: 'x' } }, 'alice'),
    ).toBe('malformed');
    expect(await requests.acceptReply({ jsonrpc: '2.0', id: 7, result: {} }, 'alice')).toBe('malformed');
    expect(await requests.acceptReply({ jsonrpc: '2.0', id, error: { code: 'x', message: 'x' } }, 'alice')).toBe(
      'malformed',
    );
    expect(router.size).toBe(1);
    expect(
      await requests.acceptReply(
        { jsonrpc: '2.0', id, result: { action: 'accept', content: { name: 'Ada' } } },
        'alice',
      ),
    ).toBe('delivered');
    await expect(asking).resolves.toEqual({ user_name: { action: 'accept', content: { name: 'Ada' } } });
  });

  it('binds nothing to a principal that identifies nobody: it is asked nothing and answers nothing', async () => {
    const sent: JsonRpcRequest[] = [];
    await expect(requests.ask(ELICIT, null, (r) => sent.push(r) > 0, never)).rejects.toThrow(
      /the caller has no identity/,
    );
    expect(sent).toHaveLength(0);
    expect(router.size).toBe(0);

    // A request waiting for a caller with identity cannot be answered by one without.
    const owner = 'a';
    const asking = requests.ask(ELICIT, owner, (r) => sent.push(r) > 0, never);
    await new Promise((resolve) => setImmediate(resolve));
    const reply = { jsonrpc: '2.0', id: sent[0].id, result: { action: 'accept', content: { name: 'Ada' } } };
    expect(await requests.acceptReply(reply, null)).toBe('forbidden');
    expect(router.size).toBe(1);
    expect(await requests.acceptReply(reply, owner)).toBe('delivered');
    await expect(asking).resolves.toEqual({ user_name: { action: 'accept', content: { name: 'Ada' } } });
  });
});
