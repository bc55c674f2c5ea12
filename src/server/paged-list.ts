import { McpError } from '../protocol/mcp-error.js';
import { preserialize } from './response-serializer.js';

export interface Page<T> {
  items: readonly T[];
  nextCursor?: string;
}

/**
 * The published, paginated view of a registry. Pages are cut once per registry version, not per request, and
 * cursors are opaque tokens naming a page of one version: stable while the registry is, and rejected with
 * -32602 (rather than silently skipping or repeating items) once it has changed.
 */
export class PagedList<T> {
  private version = 0;
  private pages: Array<Page<T>> | undefined;

  constructor(
    private readonly source: () => Iterable<T>,
    private readonly pageSize: number,
    private readonly tag: string,
  ) {
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new Error(`pageSize must be a positive integer, got ${pageSize}`);
  }

  /** Called by the registry on every change. */
  invalidate(): void {
    this.version++;
    this.pages = undefined;
  }

  page(cursor: unknown): Page<T> {
    const pages = (this.pages ??= this.cut());
    if (cursor === undefined) return pages[0];
    const index = typeof cursor === 'string' ? this.decode(cursor) : -1;
    if (index < 1 || index >= pages.length) throw McpError.invalidParams('Invalid cursor', { cursor });
    return pages[index];
  }

  private cut(): Array<Page<T>> {
    const all = [...this.source()];
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
