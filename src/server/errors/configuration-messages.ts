/** Every start-up failure's message, in one place: each names where the problem is and how to fix it. */

/** `legacy.mode` from a flat `legacy: 'off'` reads `{ legacy: { mode: 'off' } }`. */
function grouped(place: string): string {
  const path = place.split('.');
  return path.reduceRight((inner, key) => `{ ${key}: ${inner} }`, '…');
}

export const MOVED_OPTION = (where: string, key: string, place: string) =>
  `${where}: option "${key}" is now "${place}"; write ${grouped(place)} instead`;

export const MISSING_IDENTITY = 'MCP server options need a "name" and a "version" (strings)';

export const INVALID_LEGACY_MODE = (mode: unknown) =>
  `MCP option legacy.mode must be 'stateless', 'stateful' or 'off', got ${JSON.stringify(mode)}`;

export const NOT_POSITIVE_INTEGER = (option: string, value: unknown) =>
  `${option} must be a positive integer, got ${String(value)}`;

export const STATE_SECRET_EMPTY = 'requestState.secret: give at least one secret (the first signs, every one verifies)';

export const STATE_SECRET_SHORT = 'requestState.secret: every secret must be a string of at least 32 characters';

export const TASK_TTL_TOO_LONG = (max: number, ttlMs: number) => `tasks.ttlMs must be at most ${max}, got ${ttlMs}`;

export const CACHE_TTL = (ttlMs: unknown) => `cache ttlMs must be an integer >= 0, got ${String(ttlMs)}`;

export const CACHE_SCOPE = (scope: unknown) =>
  `cache cacheScope must be "public" or "private", got ${JSON.stringify(scope)}`;

export const REDIS_CLUSTER =
  'McpRedisModule does not support Redis Cluster: the task scripts touch several keys at once, which a ' +
  'Cluster refuses across hash slots. Pass a connection to a single Redis primary (with Sentinel or a ' +
  'managed failover if you need one).';

export const REDIS_NO_URL = 'McpRedisModule needs a "url" or a "connection"';

// The Nest layer's start-up failures.

export const REGISTRATION_FAILED = (place: string, reason: string) => `${place}: ${reason}`;

export const DUPLICATE_PRIMITIVE = (kind: string, key: string, first: string, second: string) =>
  `Duplicate MCP ${kind} "${key}": declared by ${first} and by ${second}`;

export const COMPLETER_NOT_A_METHOD = (completer: string, key: string) =>
  `completer "${completer}" for "${key}" must be a method of a singleton provider`;

export const DUPLICATE_DEFAULT_SERVER = (count: number) =>
  `${count} MCP servers are the default server (the one MCPServer injects): set isDefault: false on all but one ` +
  'and inject the others with @InjectMcpServer(name)';

export const UNKNOWN_STDIO_SERVER = (name: string | undefined, known: readonly string[]) =>
  `bootstrapStdio: ${name === undefined ? 'the app has no default MCP server' : `the app has no MCP server named "${name}"`} ` +
  `(its servers: ${known.length > 0 ? known.map((server) => `"${server}"`).join(', ') : 'none; import McpModule'}); ` +
  'choose one with the server option';

/** Tools naming UI resources that do not exist, found once every module has registered its own. */
export const UNRESOLVED_UI = (server: string, problems: readonly string[]) =>
  `MCP server "${server}": ${problems.join('; ')}`;

export const ARGUMENT_COLLISION = (place: string, name: string, first: string, second: string) =>
  `${place}: route tool argument "${name}" is declared by ${first} and by ${second}; give one another name ` +
  `with @RouteTool({ rename: { path | query | body: { ${name}: 'other_name' } } })`;

export const ROUTE_TOOL_UNSUPPORTED = (place: string, reason: string) => `${place}: cannot be a route tool: ${reason}`;

export const ROUTE_TOOLS_NEED_HTTP = (place: string) =>
  `${place}: route tools run their route through the app's HTTP adapter, and this application has none ` +
  '(a Nest application context). Create the app with NestFactory.create, or for stdio ' +
  'bootstrapStdio(AppModule, { http: true })';

export const ROUTE_CONTROLLER_NOT_FOUND = (name: string) =>
  `McpModule option routes.controllers: ${name} is not a controller of any module of the app; add it to a ` +
  "module's controllers";
