import { randomUUID } from 'node:crypto';
import {
  EVENT_DELIVERIES,
  type EventDelivery,
  type EventDescriptor,
  type EventOccurrence,
} from '../../protocol/extensions/events.js';
import { isPlainObject } from '../../protocol/jsonrpc.js';
import type { MetaObject } from '../../protocol/mcp-types.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { REGISTRATION_FAILED } from '../errors/configuration-messages.js';
import { PagedList } from '../registry/paged-list.js';
import type { VisibilityRule } from '../registry/visibility.js';
import type { McpSchema } from '../schema/mcp-schema.js';
import type { CompiledSchema, SchemaCompiler } from '../schema/schema-compiler.js';
import { convertSchema } from '../schema/schema-converter.js';
import { DEFAULT_EVENT_RETENTION, type EventRetention } from './occurrence-log.js';
import type { McpEventStore } from './event-store.js';

/** An event type as `MCPServer.addEvent` and `@McpEvent` declare it. */
export interface McpEventRegistration extends VisibilityRule {
  /** What clients subscribe to (`order.shipped`). */
  name: string;
  description: string;
  /** The shape of each occurrence's `data` (JSON Schema, zod, Standard Schema, a DTO class); checked on publish. */
  payloadSchema?: McpSchema;
  /** The subscription arguments a client may pass; checked on every poll and stream. Default: any object. */
  inputSchema?: McpSchema;
  /** How clients may follow it. Default `['poll', 'push']`. */
  delivery?: EventDelivery[];
  retention?: EventRetention;
  _meta?: MetaObject;
}

/** Told of each occurrence of the event type it follows, and of the event type's end. */
export interface OccurrenceListener {
  occurrence(occurrence: EventOccurrence, cursor: string): void;
  removed(): void;
}

/** Told of what happens to every event type: webhook deliveries and list-changed notices follow the catalog. */
export interface CatalogWatcher {
  published?(type: EventType, occurrence: EventOccurrence, position: string): void;
  removed?(type: EventType): void;
  /** An event type was added or removed: the list `events/list` answers changed. */
  changed?(type: EventType): void;
}

/** One declared event type: its descriptor, its retention, who follows it now. */
export interface EventType extends VisibilityRule {
  readonly descriptor: EventDescriptor;
  readonly retention: Required<EventRetention>;
  readonly input: CompiledSchema;
  readonly payload: CompiledSchema;
  readonly listeners: Set<OccurrenceListener>;
}

const ANY_OBJECT = { type: 'object' } as const;
const MAX_NAME_LENGTH = 256;

/**
 * The server's event types (SEP-3415) and their logs: what `events/list` lists, what publishing appends to and
 * what polls and streams read. Everything a request needs is built when a type is added, never per request.
 */
export class EventCatalog {
  private readonly types = new Map<string, EventType>();
  readonly listing: PagedList<EventDescriptor>;
  readonly watchers = new Set<CatalogWatcher>();

  constructor(
    private readonly schemas: SchemaCompiler,
    pageSize: number,
    /** Where occurrences are kept: `listen.eventStore`, in memory by default. */
    readonly store: McpEventStore,
    private readonly now: () => number = Date.now,
  ) {
    this.listing = new PagedList(
      () => [...this.types.values()].map((t) => t.descriptor).sort((a, b) => (a.name < b.name ? -1 : 1)),
      pageSize,
      'events',
      (descriptor) => this.types.get(descriptor.name),
    );
  }

  /** Event types declared now; with none, the server does not offer the extension. */
  get size(): number {
    return this.types.size;
  }

  get(name: string): EventType | undefined {
    return this.types.get(name);
  }

  add(registration: McpEventRegistration): void {
    const { name, description, requiredScopes, visible, _meta } = registration;
    const place = `Event "${String(name)}"`;
    const fail = (reason: string) => new McpConfigurationError(REGISTRATION_FAILED(place, reason));
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH)
      throw fail(`its name must be a string of 1 to ${MAX_NAME_LENGTH} characters`);
    if (typeof description !== 'string') throw fail('it needs a description');
    if (this.types.has(name)) throw fail('an event of that name is already declared');
    const delivery = checkedDelivery(registration.delivery, fail);
    const retention = checkedRetention(registration.retention, fail);
    const inputSchema = registration.inputSchema ? convertSchema(registration.inputSchema, 'input') : ANY_OBJECT;
    const payloadSchema = registration.payloadSchema ? convertSchema(registration.payloadSchema, 'output') : ANY_OBJECT;
    const descriptor: EventDescriptor = { name, description, delivery, inputSchema, payloadSchema };
    if (_meta !== undefined) descriptor._meta = _meta;
    const type: EventType = {
      descriptor,
      retention,
      input: this.schemas.compile(inputSchema, `${place} inputSchema`),
      payload: this.schemas.compile(payloadSchema, `${place} payloadSchema`),
      listeners: new Set(),
      requiredScopes,
      visible,
    };
    this.types.set(name, type);
    this.listing.invalidate();
    for (const watcher of this.watchers) watcher.changed?.(type);
  }

  /** Stops offering the event type; its streams are told it ended. False when there was none. */
  remove(name: string): boolean {
    const type = this.types.get(name);
    if (!type) return false;
    this.types.delete(name);
    this.store.forget?.(name);
    this.listing.invalidate();
    for (const listener of [...type.listeners]) listener.removed();
    type.listeners.clear();
    for (const watcher of this.watchers) {
      watcher.removed?.(type);
      watcher.changed?.(type);
    }
    return true;
  }

  /**
   * Keeps an occurrence of `name` with `data` and tells its streams; with a synchronous store (the default), before
   * this returns, so a poll right after sees it. Throws (a TypeError naming the problem) for an undeclared type,
   * data its payloadSchema refuses, or an occurrence larger than the type's whole retention.
   */
  publish(name: string, data: unknown): void | Promise<void> {
    const type = this.types.get(name);
    if (!type) throw new TypeError(`No event "${name}" is declared: declare it with @McpEvent or MCPServer.addEvent`);
    if (!isPlainObject(data)) throw new TypeError(`Event "${name}": an occurrence's data must be a plain object`);
    const problem = type.payload.validate(data);
    if (problem) throw new TypeError(`Event "${name}": data does not match its payloadSchema: ${problem}`);
    // A copy of what the app handed over: a later change to its object must not rewrite history.
    const occurrence: EventOccurrence = {
      eventId: randomUUID(),
      name,
      timestamp: new Date(this.now()).toISOString(),
      data: JSON.parse(JSON.stringify(data)) as Record<string, unknown>,
    };
    const bytes = Buffer.byteLength(JSON.stringify(occurrence));
    const { maxBytes } = type.retention;
    if (bytes > maxBytes)
      throw new TypeError(`Event "${name}": an occurrence of ${bytes} bytes exceeds its retention of ${maxBytes}`);
    const tell = (position: string) => {
      for (const listener of type.listeners) listener.occurrence(occurrence, position);
      for (const watcher of this.watchers) watcher.published?.(type, occurrence, position);
    };
    const appended = this.store.append(name, occurrence, bytes, type.retention);
    if (typeof appended === 'string') return tell(appended);
    return appended.then(tell);
  }
}

function checkedDelivery(given: unknown, fail: (reason: string) => Error): EventDelivery[] {
  if (given === undefined) return ['poll', 'push'];
  if (!Array.isArray(given) || given.length === 0 || given.some((d) => !EVENT_DELIVERIES.includes(d as EventDelivery)))
    throw fail(`delivery must be a non-empty list of ${EVENT_DELIVERIES.map((d) => `"${d}"`).join(', ')}`);
  return [...new Set(given as EventDelivery[])];
}

function checkedRetention(given: EventRetention | undefined, fail: (reason: string) => Error) {
  const set = Object.entries(given ?? {}).filter(([, value]) => value !== undefined);
  const retention = { ...DEFAULT_EVENT_RETENTION, ...Object.fromEntries(set) } as Required<EventRetention>;
  for (const key of Object.keys(retention) as Array<keyof EventRetention>) {
    if (!(key in DEFAULT_EVENT_RETENTION)) throw fail(`retention has no option "${key}"`);
    const value = retention[key];
    if (!Number.isSafeInteger(value) || value < 1) throw fail(`retention.${key} must be a positive integer`);
  }
  return retention;
}
