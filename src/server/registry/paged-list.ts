import { McpError } from '../../protocol/mcp-error.js';
import { hasScopes } from '../access/required-scopes.js';
import type { RuledListing, VisibilityRule } from './visibility.js';
import { preserialize } from '../response-serializer.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { NOT_POSITIVE_INTEGER } from '../errors/configuration-messages.js';

export interface Page<T> {
  items: readonly T[];
  nextCursor?: string;
}

/** Most visibility classes whose pages are kept; beyond it the cache starts over rather than growing. */
const MAX_CACHED_CLASSES = 64;

interface Snapshot<T> {
  items: T[];
  /** Per item: the index of its scope requirement in `requirements`, or -1 when it needs none. */
  requirementOf: number[];
  /** The distinct scope requirements of the items. */
  requirements: Array<readonly string[]>;
  /** Pages per visibility class: which requirements the caller meets, as a string of 0s and 1s. */
  byClass: Map<string, Array<Page<T>>>;
  /** Some item decides per request who sees it. */
  conditional: boolean;
}

/**
 * The published, paginated view of a registry. Pages are cut once per registry version and visibility class,
 * not per request, and cursors are opaque tokens naming a page of one version: stable while the registry is,
 * and rejected with -32602 (rather than silently skipping or repeating items) once it has changed. Items that
 * require scopes are shown only to callers granted all of them; callers meeting the same requirements share
 * one set of pages; what an item's `visible` decides per request is left to `Visibility`.
 */
export class PagedList<T> implements RuledListing<T> {
  private version = 0;
  private snapshot: Snapshot<T> | undefined;

  constructor(
    private readonly source: () => Iterable<T>,
    private readonly pageSize: number,
    private readonly tag: string,
    readonly ruleOf: (item: T) => VisibilityRule | undefined = () => undefined,
  ) {
    if (!Number.isSafeInteger(pageSize) || pageSize < 1)
      throw new McpConfigurationError(NOT_POSITIVE_INTEGER('limits.pageSize', pageSize));
  }

  /** Called by the registry on every change. */
  invalidate(): void {
    this.version++;
    this.snapshot = undefined;
  }

  /** Whether what a caller sees depends on its scopes, so a page must not be shared across callers. */
  get scoped(): boolean {
    return this.take().requirements.length > 0;
  }

  /** Whether some item decides per request who sees it. */
  get conditional(): boolean {
    return this.take().conditional;
  }

  page(cursor: unknown, granted: ReadonlySet<string> = new Set()): Page<T> {
    const pages = this.pagesFor(granted);
    if (cursor === undefined) return pages[0];
    const index = typeof cursor === 'string' ? this.decode(cursor) : -1;
    if (index < 1 || index >= pages.length) throw McpError.invalidParams('Invalid cursor', { cursor });
    return pages[index];
  }

  private take(): Snapshot<T> {
    if (this.snapshot) return this.snapshot;
    const items = [...this.source()];
    const requirements: Array<readonly string[]> = [];
    const keys = new Map<string, number>();
    let conditional = false;
    const requirementOf = items.map((item) => {
      const rule = this.ruleOf(item);
      if (rule?.visible) conditional = true;
      const required = rule?.requiredScopes;
      if (!required) return -1;
      const key = [...required].sort().join(' ');
      let index = keys.get(key);
      if (index === undefined) {
        index = requirements.push(required) - 1;
        keys.set(key, index);
      }
      return index;
    });
    return (this.snapshot = { items, requirementOf, requirements, byClass: new Map(), conditional });
  }

  private pagesFor(granted: ReadonlySet<string>): Array<Page<T>> {
    const snapshot = this.take();
    const met = snapshot.requirements.map((required) => hasScopes(required, granted));
    const key = met.map((m) => (m ? '1' : '0')).join('');
    let pages = snapshot.byClass.get(key);
    if (!pages) {
      if (snapshot.byClass.size >= MAX_CACHED_CLASSES) snapshot.byClass.clear();
      pages = this.cut(
        snapshot.items.filter((_, i) => snapshot.requirementOf[i] === -1 || met[snapshot.requirementOf[i]]),
      );
      snapshot.byClass.set(key, pages);
    }
    return pages;
  }

  private cut(all: T[]): Array<Page<T>> {
    const count = Math.max(1, Math.ceil(all.length / this.pageSize));
    const pages: Array<Page<T>> = [];
    for (let i = 0; i < count; i++) {
      // Pages are immutable snapshots of one registry version, serialized here once for every response.
      const page: Page<T> = { items: preserialize(all.slice(i * this.pageSize, (i + 1) * this.pageSize)) };
      if (i + 1 < count) page.nextCursor = Buffer.from(`${this.tag}:${this.version}:${i + 1}`).toString('base64url');
      pages.push(page);
    }
    return pages;
  }

  private decode(cursor: string): number {
    const match = /^([a-z]+):(\d+):(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!match || match[1] !== this.tag || Number(match[2]) !== this.version) return -1;
    return Number(match[3]);
  }
}
