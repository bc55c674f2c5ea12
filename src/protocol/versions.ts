/** The protocol revision this library serves. */
export const LATEST_PROTOCOL_VERSION = '2026-07-28';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([LATEST_PROTOCOL_VERSION]);

/** Reserved `_meta` keys of the 2026-07-28 request envelope. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Methods earlier revisions had and 2026-07-28 removed: answered with -32601 like any unknown method. */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * The 2025-era revisions served on the same endpoint after an `initialize` (the dual-era rules of 2026-07-28,
 * versioning): newest first, the first is the counter-offer to any other requested version. Never listed in
 * `server/discover` or in -32022, which name the revisions reached through the per-request envelope.
 */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
]);

/** What a 2025-era request without an `MCP-Protocol-Version` header speaks (2025-06-18 transports, "SHOULD assume"). */
export const LEGACY_DEFAULT_TRANSPORT_VERSION = '2025-03-26';
