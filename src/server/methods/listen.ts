import { setMaxListeners } from 'node:events';
import { ErrorCode } from '../../protocol/error-codes.js';
import { isPlainObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { SubscriptionsListenResult } from '../../protocol/mcp-types.js';
import { declaresTasksExtension, tasksExtensionRequired } from '../../protocol/extensions/tasks.js';
import { META_SUBSCRIPTION_ID } from '../../protocol/versions.js';
import type { McpEventBus } from '../events/event-bus.js';
import { ListenAudience, ListenSlots, requestedSubscriptions, type ListenLimits } from './listen-access.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import type { PromptRegistry } from '../registry/prompt-registry.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ScopeGate } from '../access/scope-gate.js';
import type { Caller } from '../access/caller-identity.js';
import { taskOwner } from '../tasks/task-owner.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { EVENTS_LIST_CHANGED_NOTIFICATION } from '../../protocol/extensions/events.js';

const MAX_TIMER_DELAY = 2 ** 31 - 1;
// A caller keeps at most `tasks.maxTasksPerCaller` (100 by default) tasks; a stream follows at most this many, and
// its acknowledgement names the ones it agreed to, so a body full of ids costs no more than that.
const MAX_TASK_IDS = 100;

/**
 * `subscriptions/listen`: a long-lived stream of list-changed, resource-updated and task notifications, told only
 * what its caller's scopes may see (`ListenAudience`) and of its caller's own tasks, within global and per-caller
 * caps (`ListenSlots`).
 */
export class ListenMethods {
  private readonly closing = new AbortController();
  private readonly slots: ListenSlots;

  constructor(
    private readonly tools: ToolRegistry,
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
    private readonly eventBus: McpEventBus,
    private readonly limits: ListenLimits,
    private readonly gate: ScopeGate,
    /** The server's name: task states reach only its own tasks' owners. */
    private readonly server: string,
    /** How many event types (SEP-3415) are declared now: with none, `eventsListChanged` is not honoured. */
    private readonly eventTypes: () => number = () => 0,
  ) {
    this.slots = new ListenSlots(limits);
    // Every open listen stream waits on this one signal; that many listeners is the design, not a leak.
    setMaxListeners(0, this.closing.signal);
  }

  /** Listen streams open now. */
  get openStreams(): number {
    return this.slots.count;
  }

  /** Ends every open stream with its closing result; later listens are refused. */
  close(): void {
    this.closing.abort();
  }

  /**
   * What a caller watching `uris` may be told. A subscription to a resource the caller lacks scopes for is
   * refused up front like a read, with the step-up challenge; hidden, it is acknowledged and never told anything.
   * The 2025-era `resources/subscribe` is held to the same rule.
   */
  audience(uris: readonly string[], scopes: readonly string[] | undefined): ListenAudience {
    const audience = new ListenAudience(new Set(scopes), (uri) => this.resources.match(uri), uris);
    if (!this.gate.hide) audience.forbidSubscriptions(uris);
    return audience;
  }

  async listen(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    caller: Caller,
  ): Promise<SubscriptionsListenResult> {
    const notify = transport.notify;
    if (!notify) throw McpError.methodNotFound(`${request.method} (it needs a streaming transport)`);
    const filter = isPlainObject(request.params?.notifications) ? request.params.notifications : {};
    const honoured: Record<string, unknown> = {};
    if (filter.toolsListChanged === true && this.tools.size > 0) honoured.toolsListChanged = true;
    if (filter.promptsListChanged === true && this.prompts.size > 0) honoured.promptsListChanged = true;
    if (filter.resourcesListChanged === true && this.resources.size > 0) honoured.resourcesListChanged = true;
    if (filter.eventsListChanged === true && this.eventTypes() > 0) honoured.eventsListChanged = true;
    const watched = requestedSubscriptions(
      filter.resourceSubscriptions,
      this.limits.maxResourceSubscriptions,
      this.limits.maxUriLength,
    );
    if (watched.length > 0 && this.resources.size > 0) honoured.resourceSubscriptions = watched;
    const taskIds = Array.isArray(filter.taskIds)
      ? filter.taskIds.filter((id): id is string => typeof id === 'string').slice(0, MAX_TASK_IDS)
      : [];
    if (taskIds.length > 0) {
      if (!declaresTasksExtension(request)) throw tasksExtensionRequired();
      honoured.taskIds = taskIds;
    }
    const audience = this.audience(watched, transport.scopes);
    if (this.closing.signal.aborted) throw new McpError(ErrorCode.InternalError, 'Server is shutting down');
    const release = this.slots.take(caller);

    const subscriptionMeta = { [META_SUBSCRIPTION_ID]: request.id };
    const send = (method: string, params: Record<string, unknown> = {}) =>
      notify({ jsonrpc: '2.0', method, params: { ...params, _meta: subscriptionMeta } });
    // A task's states go to its owner's streams only: another caller naming its id learns nothing.
    const taskSet = new Set(taskIds);
    const owner = taskOwner(this.server, caller);
    let unsubscribe: (() => void) | undefined;
    try {
      send('notifications/subscriptions/acknowledged', { notifications: honoured });
      unsubscribe = this.eventBus.subscribe((event) => {
        if (event.type === 'tasks/status') {
          if (event.owner === owner && taskSet.has(event.task.taskId)) send('notifications/tasks', { ...event.task });
          return;
        }
        if (!audience.admits(event)) return;
        if (event.type === 'tools/list_changed' && honoured.toolsListChanged) send('notifications/tools/list_changed');
        else if (event.type === 'prompts/list_changed' && honoured.promptsListChanged)
          send('notifications/prompts/list_changed');
        else if (event.type === 'resources/list_changed' && honoured.resourcesListChanged)
          send('notifications/resources/list_changed');
        else if (event.type === 'events/list_changed' && honoured.eventsListChanged)
          send(EVENTS_LIST_CHANGED_NOTIFICATION);
        else if (event.type === 'resources/updated') send('notifications/resources/updated', { uri: event.uri });
      });
      await untilStopped(transport, this.closing.signal);
    } finally {
      unsubscribe?.();
      release();
    }
    return { _meta: subscriptionMeta };
  }
}

/**
 * Resolves when the server closes, the caller's credential expires, or the transport gives up on the request:
 * through its `onAbort` subscription when it has one (a transport may offer only that), else through its signal.
 */
export function untilStopped(transport: McpRequestContext, closing: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let unsubscribe: (() => void) | undefined;
    let expiry: NodeJS.Timeout | undefined;
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      closing.removeEventListener('abort', stop);
      clearTimeout(expiry);
      unsubscribe?.();
      resolve();
    };
    if (closing.aborted) return stop();
    closing.addEventListener('abort', stop, { once: true });
    const expiresAt = transport.credentialExpiresAt;
    if (expiresAt !== undefined) {
      // setTimeout fires at once for a delay past 2^31-1 ms (about 24.8 days): a later expiry waits in steps.
      const arm = () => {
        const left = expiresAt - Date.now();
        expiry = left > MAX_TIMER_DELAY ? setTimeout(arm, MAX_TIMER_DELAY) : setTimeout(stop, Math.max(left, 0));
        // The open response holds the process; a pending expiry alone should not.
        expiry.unref();
      };
      arm();
    }
    if (transport.onAbort) {
      unsubscribe = transport.onAbort(stop);
    } else if (transport.signal) {
      const signal = transport.signal;
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      unsubscribe = () => signal.removeEventListener('abort', stop);
    }
    // A subscription that fired at once left nothing to undo.
    if (stopped) unsubscribe?.();
  });
}
