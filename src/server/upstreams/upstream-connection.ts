import { AsyncLocalStorage } from 'node:async_hooks';
import { McpError } from '../../protocol/mcp-error.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ClientCapabilities, InputRequest, LoggingLevel } from '../../protocol/mcp-types.js';
import { encodeHeaderValue } from '../../protocol/header-codec.js';
import { routedName } from '../../protocol/routed-name.js';
import {
  LATEST_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
} from '../../protocol/versions.js';
import { optionalImport } from '../schema/optional-import.js';
import { isStdioUpstream, upstreamLabel, type McpUpstreamCaller, type McpUpstreamOptions } from './upstream-options.js';
import { boundedFetch } from './bounded-fetch.js';
import type { UpstreamClient, UpstreamClientModule, UpstreamStdioModule } from './upstream-client.js';
import type { RelaySink } from './upstream-relay.js';
import type { UpstreamAnswer } from './upstream-task.js';

/** The first restarts come quickly; none waits longer than this, so a server back up serves within 30 s. */
const BACKOFF_MS = [250, 500, 1_000, 2_000, 4_000, 8_000];
const CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;

export type ListKind = 'tools' | 'prompts' | 'resources';

/**
 * What the gateway declares to every upstream: it can relay any input request to its callers (each call's
 * caller is asked only for what it declared; what it cannot answer is refused to the upstream).
 */
const RELAYED_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
const INPUT_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;
const GATEWAY_INFO = { name: 'nestjs-mcp-gateway', version: '1.0.0' };

/** Who a request to the upstream is made for, and the mounted call it belongs to (none for the lists). */
interface InFlight {
  caller: McpUpstreamCaller;
  relay?: RelaySink;
}

export interface UpstreamConnectionEvents {
  /** The upstream said a list changed (or the connection was made again): ask it for its lists. */
  listChanged(kind: ListKind | 'all'): void;
  warn(message: string): void;
}

/**
 * One upstream, reached with the official SDK's client (loaded on first use: an app without upstreams never
 * needs it): connected at start-up, connected again with backoff whenever the connection is lost (a stdio
 * child that died is started again), closed on shutdown. The caller's headers never reach the upstream: what
 * it receives are the entry's `headers`, set per request by the `fetch` the transport is given.
 */
export class UpstreamConnection {
  private client: UpstreamClient | undefined;
  private connecting: Promise<UpstreamClient> | undefined;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly inFlight = new AsyncLocalStorage<InFlight>();
  /** The mounted calls waiting for the upstream's answer now. */
  private readonly relays = new Set<RelaySink>();
  readonly label: string;
  /** An HTTP upstream's requests: bounded, with the entry's headers for the caller in flight. */
  private readonly fetch: typeof fetch;
  private requests = 0;

  constructor(
    readonly entry: McpUpstreamOptions,
    private readonly maxResponseBytes: number,
    private readonly events: UpstreamConnectionEvents,
  ) {
    this.label = upstreamLabel(entry);
    const headers = isStdioUpstream(entry) ? undefined : entry.headers;
    this.fetch = boundedFetch(maxResponseBytes, this.label, async () => {
      if (headers === undefined) return {};
      if (typeof headers !== 'function') return headers;
      return headers(this.inFlight.getStore()?.caller ?? {});
    });
  }

  /**
   * A 2026-07-28 request made by hand, for what the official client does not speak (the tasks wire), with the
   * entry's headers for `caller`: its JSON-RPC answer.
   */
  async post(
    caller: McpUpstreamCaller,
    method: string,
    params: Record<string, unknown>,
    capabilities: ClientCapabilities,
  ): Promise<UpstreamAnswer> {
    if (isStdioUpstream(this.entry)) throw new Error(`${method} is not relayed to a stdio upstream`);
    const id = `gateway-${++this.requests}`;
    const meta = {
      [META_PROTOCOL_VERSION]: LATEST_PROTOCOL_VERSION,
      [META_CLIENT_INFO]: GATEWAY_INFO,
      [META_CLIENT_CAPABILITIES]: capabilities,
    };
    const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      'mcp-method': method,
    };
    const name = routedName(body);
    if (name !== undefined) headers['mcp-name'] = encodeHeaderValue(name);
    const url = this.entry.url;
    const response = await this.inFlight.run({ caller }, () =>
      this.fetch(url, { method: 'POST', headers, body: JSON.stringify(body) }),
    );
    const text = await response.text();
    const streamed = response.headers.get('content-type')?.includes('text/event-stream');
    const answer = (streamed ? sseAnswer(text, id) : parseJson(text)) as Partial<UpstreamAnswer> | undefined;
    if (!answer || (!('result' in answer) && !('error' in answer)))
      throw new Error(`${method} was answered with HTTP ${response.status} and no JSON-RPC answer`);
    return answer as UpstreamAnswer;
  }

  /** The connected client, or why there is none (the connection is being made again in the background). */
  async connected(): Promise<UpstreamClient> {
    if (this.client) return this.client;
    if (this.connecting) return this.connecting;
    throw new Error(`upstream ${this.label} is unavailable; reconnecting in the background`);
  }

  /**
   * Runs `request` with the headers `caller` is given by the entry; what the upstream sends on the request's
   * own stream (its requests for input, its logs) goes to `relay`.
   */
  async as<T>(caller: McpUpstreamCaller, relay: RelaySink | undefined, request: () => Promise<T>) {
    if (!relay) return this.inFlight.run({ caller }, request);
    this.relays.add(relay);
    try {
      return await this.inFlight.run({ caller, relay }, request);
    } finally {
      this.relays.delete(relay);
    }
  }

  /**
   * The mounted call a message of the upstream belongs to. The one whose request's stream carried it (an HTTP
   * upstream answers on the call's own stream); a message that came another way (stdio has one stream for
   * everything, a server may use its standalone stream) can only be the only call in flight, and a request for
   * input may be taken as such; a log may not, lest one caller read what was meant for another.
   */
  private relayOf(message: 'request' | 'log'): RelaySink | undefined {
    const own = this.inFlight.getStore()?.relay;
    if (own || message === 'log') return own;
    return this.relays.size === 1 ? this.relays.values().next().value : undefined;
  }

  private relayHandlers(client: UpstreamClient): void {
    for (const method of INPUT_METHODS) {
      client.setRequestHandler(method, (request: { params: unknown }) => {
        const relay = this.relayOf('request');
        if (!relay)
          throw new McpError(
            ErrorCode.InvalidRequest,
            `${method} is relayed to the caller of a call in flight only, and none could be told to be its own`,
          );
        return relay.ask({ method, params: withoutMeta(request.params) } as InputRequest);
      });
    }
    client.setNotificationHandler('notifications/message', (notification: { params: LogParams }) => {
      const { level, data, logger } = notification.params;
      this.relayOf('log')?.log(level, data, logger);
    });
  }

  /** The era the upstream speaks, once connected. */
  era(): 'legacy' | 'modern' | undefined {
    return this.client?.getProtocolEra();
  }

  /** The first connection: start-up waits for it (and fails with it), later ones run in the background. */
  start(): Promise<UpstreamClient> {
    return this.connect();
  }

  /** A call failed in a way that says the connection is gone: drop it and connect again. */
  lost(): void {
    const client = this.client;
    if (!client || this.closed) return;
    this.client = undefined;
    client.onclose = undefined;
    void client.close().catch(() => undefined);
    this.scheduleReconnect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    if (client) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
    }
  }

  private connect(): Promise<UpstreamClient> {
    const attempt = this.open().then(
      (client) => {
        this.connecting = undefined;
        this.failures = 0;
        if (this.closed) {
          void client.close().catch(() => undefined);
          throw new Error(`upstream ${this.label} is closed`);
        }
        this.client = client;
        client.onclose = () => {
          if (this.client !== client) return;
          this.client = undefined;
          this.events.warn(`upstream ${this.label}: connection closed; reconnecting`);
          this.scheduleReconnect();
        };
        return client;
      },
      (error: unknown) => {
        this.connecting = undefined;
        throw error;
      },
    );
    this.connecting = attempt;
    return attempt;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    const delay = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)];
    this.failures++;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connect().then(
        () => this.events.listChanged('all'),
        (error: unknown) => {
          this.events.warn(`upstream ${this.label}: ${(error as Error).message}`);
          this.scheduleReconnect();
        },
      );
    }, delay);
    this.retry.unref();
  }

  private async open(): Promise<UpstreamClient> {
    const sdk = await optionalImport<UpstreamClientModule>('@modelcontextprotocol/client', 'upstreams');
    const entry = this.entry;
    const notify = (kind: ListKind) => ({ autoRefresh: false, onChanged: () => this.events.listChanged(kind) });
    const client = new sdk.Client(GATEWAY_INFO, {
      capabilities: RELAYED_CAPABILITIES,
      versionNegotiation: { mode: 'auto' },
      listChanged: { tools: notify('tools'), prompts: notify('prompts'), resources: notify('resources') },
    });
    this.relayHandlers(client);
    if (isStdioUpstream(entry)) {
      const stdio = await optionalImport<UpstreamStdioModule>('@modelcontextprotocol/client/stdio', 'upstreams');
      const transport = new stdio.StdioClientTransport({
        command: entry.command,
        args: entry.args ?? [],
        cwd: entry.cwd ?? process.cwd(),
        env: entry.env ? { ...stdio.getDefaultEnvironment(), ...entry.env } : undefined,
        stderr: 'inherit',
        // The child's lines are bounded as an HTTP upstream's responses are.
        maxBufferSize: this.maxResponseBytes,
      });
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      return client;
    }
    const transport = new sdk.StreamableHTTPClientTransport(new URL(entry.url), { fetch: this.fetch });
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    return client;
  }
}

interface LogParams {
  level: LoggingLevel;
  data: unknown;
  logger?: string;
}

/** An input request's params as the caller is to see them: the upstream's own `_meta` envelope left out. */
function withoutMeta(params: unknown): Record<string, unknown> {
  const { _meta: _, ...rest } = (params ?? {}) as Record<string, unknown>;
  return rest;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The answer to request `id` among the messages of an event stream. */
function sseAnswer(text: string, id: string): unknown {
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    const message = data ? parseJson(data) : undefined;
    if ((message as { id?: unknown } | undefined)?.id === id) return message;
  }
  return undefined;
}
