import { SetMetadata } from '@nestjs/common';
import type { McpEventRegistration } from '../../server/domain-events/event-catalog.js';
import { MCP_EVENT_METADATA } from '../mcp-metadata.constants.js';

/** What `@McpEvent` declares; the method's guards and `@RequireScopes` supply who may follow it. */
export interface McpEventOptions extends Omit<McpEventRegistration, 'visible' | 'requiredScopes'> {
  /** The app event (`@nestjs/event-emitter`) the method listens to. Default: `name`. */
  on?: string;
}

/**
 * Declares an event type (SEP-3415) fed by the app's own events: the method listens on `@nestjs/event-emitter`'s
 * emitter (for `on`, else `name`), receives each app event and returns the occurrence's `data`, or `undefined`
 * to publish nothing. The app must import `EventEmitterModule.forRoot()`. `@UseGuards` and `@RequireScopes` on
 * the method or its class decide who may list, poll and stream it; to anyone else it does not exist.
 */
export function McpEvent(options: McpEventOptions): MethodDecorator {
  return SetMetadata(MCP_EVENT_METADATA, options);
}
