import type { Completer } from '../../server/registry/resource-registry.js';

/**
 * Completers per argument or variable: a function, or the name of a method of the same provider (called on
 * the provider's instance, so it can use injected services).
 */
export type McpCompleters = Record<string, Completer | string>;
