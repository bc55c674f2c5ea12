import type { DetailedTask } from '../protocol/tasks.js';

/** What listen streams can be told about. A task's state goes only to streams of its owner (an opaque key). */
export type McpEvent =
  | { type: 'tools/list_changed' }
  | { type: 'prompts/list_changed' }
  | { type: 'resources/list_changed' }
  | { type: 'resources/updated'; uri: string }
  | { type: 'tasks/status'; owner: string; task: DetailedTask };

/**
 * Carries change events to `subscriptions/listen` streams. The default lives in the process; a deployment
 * with several instances backs it with Redis pub/sub or similar, so a change on one instance reaches the
 * streams held by all of them.
 */
export interface McpEventBus {
  publish(event: McpEvent): void | Promise<void>;
  subscribe(listener: (event: McpEvent) => void): () => void;
}

export class InProcessEventBus implements McpEventBus {
  private readonly listeners = new Set<(event: McpEvent) => void>();

  publish(event: McpEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: (event: McpEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
