import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { McpBusEvent, McpEventBus } from '../../server/events/event-bus.js';
import { RedisChannel } from './redis-channel.js';
import type { McpRedisConnections } from './redis-connections.js';

/** What goes over the channel: the publishing instance, so it can skip its own echo, and the event. */
interface Envelope {
  o: string;
  e: McpBusEvent;
}

// After an outage this instance may have missed changes published elsewhere: the list events tell its streams
// to fetch again. A missed resources/updated cannot be rebuilt (its URI is gone with it).
const RESYNC_EVENTS: readonly McpBusEvent[] = [
  { type: 'tools/list_changed' },
  { type: 'prompts/list_changed' },
  { type: 'resources/list_changed' },
  { type: 'events/list_changed' },
];

// Distinct events published before the first connect, held until it: enough for the changes an app makes while
// it starts (identical ones are held once), and a bound on memory should Redis be away at start-up.
const MAX_HELD_EVENTS = 1_000;

/**
 * The event bus over Redis pub/sub: a change published on any instance reaches the listen streams of every
 * instance. Each instance hands its own events to its own streams at once (so they keep flowing while Redis
 * is down) and skips their echo from the channel; events from elsewhere arrive in the order they were
 * published, since one channel is delivered in order to each subscriber. Pub/sub keeps nothing, so there is
 * nothing in Redis to expire.
 */
export class RedisEventBus implements McpEventBus {
  private readonly listeners = new Set<(event: McpBusEvent) => void>();
  private readonly origin = randomUUID();
  private readonly channel: RedisChannel;
  private publishFailing = false;
  /**
   * What was published before the command connection was first ready (an app registers its tools while it
   * connects), sent once it is: not a loss, and not an outage. Null from then on.
   */
  private held: Set<string> | null = new Set();
  private readonly stopHolding: () => void;

  /** `name` keeps several MCP servers of one app apart (default `events`): each bus is its own channel. */
  constructor(
    private readonly redis: McpRedisConnections,
    name = 'events',
    private readonly logger: Pick<Logger, 'warn'> = new Logger('McpRedis'),
  ) {
    this.channel = new RedisChannel(
      redis,
      redis.key(name),
      (message) => this.receive(message),
      () => {
        for (const event of RESYNC_EVENTS) this.deliver(event);
      },
    );
    this.stopHolding = redis.onFirstReady(() => this.release());
  }

  /** True while this instance receives the events of the others (for readiness checks). */
  get listening(): boolean {
    return this.channel.listening;
  }

  /**
   * Never rejects: a change is a registration or a tool's notice, neither of which should fail because other
   * instances cannot be told. While Redis is away they are not, and the log says so once per outage.
   */
  async publish(event: McpBusEvent): Promise<void> {
    this.deliver(event);
    const message = this.message(event);
    if (this.held) return this.hold(message);
    await this.send(message);
  }

  /**
   * What `publish` sends on the channel for `event`, for a script that publishes it with the write it tells of
   * (a task's ended record); once that write is done, `announced` hands the event to this instance's streams.
   */
  message(event: McpBusEvent): string {
    const envelope: Envelope = { o: this.origin, e: event };
    return JSON.stringify(envelope);
  }

  /** The channel `publish` sends on. */
  get channelName(): string {
    return this.channel.name;
  }

  /** Whether this bus publishes through `redis`: a script run on it may publish for the bus. */
  publishesThrough(redis: McpRedisConnections): boolean {
    return this.redis === redis;
  }

  /** Hands this instance's streams an event a script published on the channel (the bus skips its echo). */
  announced(event: McpBusEvent): void {
    this.deliver(event);
  }

  subscribe(listener: (event: McpBusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops listening on the channel (the connections themselves belong to `McpRedisConnections`). */
  close(): void {
    this.stopHolding();
    this.held = null;
    this.channel.close();
  }

  private async send(message: string): Promise<void> {
    try {
      await this.redis.run('publish an event', (redis) => redis.publish(this.channel.name, message));
      this.publishFailing = false;
    } catch (error) {
      this.reportFailure((error as Error).message);
    }
  }

  private hold(message: string): void {
    const held = this.held!;
    // The same event again says nothing new but "later": it moves to the end.
    held.delete(message);
    if (held.size < MAX_HELD_EVENTS) held.add(message);
    else this.reportFailure(`Redis is unavailable (publish an event): not connected yet, ${held.size} events wait`);
  }

  /** Sends what was held, in the order it was published: commands on one connection keep their order. */
  private release(): void {
    const held = this.held;
    this.held = null;
    for (const message of held ?? []) void this.send(message);
  }

  private reportFailure(reason: string): void {
    if (this.publishFailing) return;
    this.publishFailing = true;
    this.logger.warn(`Events reach only this instance's listen streams until Redis is back: ${reason}`);
  }

  private receive(envelope: unknown): void {
    if (!isEnvelope(envelope) || envelope.o === this.origin) return;
    this.deliver(envelope.e);
  }

  private deliver(event: McpBusEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** Only well-formed events reach the streams: anything else published on the channel is ignored. */
function isEnvelope(value: unknown): value is Envelope {
  if (typeof value !== 'object' || value === null) return false;
  const { o, e } = value as Record<string, unknown>;
  if (typeof o !== 'string' || typeof e !== 'object' || e === null) return false;
  const event = e as Record<string, unknown>;
  switch (event.type) {
    case 'tools/list_changed':
    case 'prompts/list_changed':
    case 'resources/list_changed':
      return true;
    case 'resources/updated':
      return typeof event.uri === 'string';
    // A task's state (the tasks extension), for the streams of the task's owner.
    case 'tasks/status':
      return typeof event.owner === 'string' && typeof event.task === 'object' && event.task !== null;
    default:
      return false;
  }
}
