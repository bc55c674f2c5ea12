import type { DetailedTask } from '../../protocol/extensions/tasks.js';

/**
 * What listen streams can be told about. A list change carries the scopes needed to see the primitive that
 * changed (absent: visible to every caller), so a stream is told only of changes its caller can see. A task's
 * state goes only to streams of its owner (an opaque key).
 */
export type McpBusEvent =
  | { type: 'tools/list_changed'; requiredScopes?: readonly string[] }
  | { type: 'prompts/list_changed'; requiredScopes?: readonly string[] }
  | { type: 'resources/list_changed'; requiredScopes?: readonly string[] }
  | { type: 'events/list_changed'; requiredScopes?: readonly string[] }
  | { type: 'resources/updated'; uri: string }
  | { type: 'tasks/status'; owner: string; task: DetailedTask };

/** Told when a registry's list changed, with the scopes needed to see what changed (undefined: everybody). */
export type ListChangeListener = (requiredScopes: readonly string[] | undefined) => void;

/**
 * Carries change events to `subscriptions/listen` streams. The default lives in the process; a deployment
 * with several instances backs it with Redis pub/sub or similar, so a change on one instance reaches the
 * streams held by all of them.
 */
export interface McpEventBus {
  publish(event: McpBusEvent): void | Promise<void>;
  subscribe(listener: (event: McpBusEvent) => void): () => void;
}

export class InProcessEventBus implements McpEventBus {
  private readonly listeners = new Set<(event: McpBusEvent) => void>();

  publish(event: McpBusEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: (event: McpBusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
