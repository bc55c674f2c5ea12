/**
 * Every message the Nest layer logs or fails start-up with, in one place (as `@nestjs/schedule` keeps its own).
 * What the layers below fail with is in src/server/errors/configuration-messages.ts.
 */

/** `what`: the primitive, as `tool "name"`. */
export const VISIBILITY_GUARD_FAILED = (what: string) =>
  `A guard of ${what} threw while deciding whether the caller sees it; it is hidden from this request`;

export const GENERATED_STATE_SECRET = (server: string) =>
  `MCP server "${server}": no requestState.secret configured, so multi-round request state is signed with a ` +
  'random per-process key. Deployments with several instances need a shared secret (McpModule option requestState.secret).';

// Start-up failures.

export const DUPLICATE_PRIMITIVE = (kind: string, key: string, first: string, second: string) =>
  `Duplicate MCP ${kind} "${key}": declared by ${first} and by ${second}`;

export const SKILL_NOT_STATIC = (name: string) =>
  `@Skill "${name}": the method runs once at start-up, so it must be a method of a singleton (not request-scoped) provider`;

export const COMPLETER_NOT_A_METHOD = (completer: string, key: string) =>
  `completer "${completer}" for "${key}" must be a method of a singleton provider`;

export const DEFINITION_OPTION_IN_FACTORY = (key: string) =>
  `McpModule.forRootAsync: '${key}' shapes the module, which is defined before the factory runs, so the ` +
  `factory's options cannot carry it: give it beside useFactory, McpModule.forRootAsync({ ${key}: ..., ` +
  'useFactory: () => ({ name, version, ... }) })';

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

export const ARGUMENT_SCHEMA_MISSING = (places: readonly string[]) =>
  `${places.join(', ')} ${places.length === 1 ? 'takes' : 'take'} typed arguments but ${places.length === 1 ? 'has' : 'have'} ` +
  'no input schema, and would be published taking none: nestjs-mcp/plugin derives the schema from the types, ' +
  'and none of its metadata was loaded for them. With the SWC builder, vitest or @swc/jest, add ' +
  '`await McpModule.loadPluginMetadata(metadata);` (metadata being the default export of the metadata.ts the ' +
  'Nest CLI generates) before the app is created; with tsc or ts-jest, add "nestjs-mcp/plugin" to the compiler plugins ' +
  '(docs/schemas.md); or give the decorator an inputSchema';

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

export const PLAYGROUND_IN_PRODUCTION =
  'McpModule: the playground is a development tool and NODE_ENV is "production": remove the "playground" option ' +
  'for production, or write playground: { enabled: true, allowInProduction: true } to serve it anyway';

export const PLAYGROUND_NOT_BUILT = (places: readonly string[]) =>
  `McpModule: the playground page is not built (looked for ${places.join(' and ')}); ` +
  'the package build writes it: run npm run build';

export const ROUTE_PIPE = (pipe: string) =>
  `McpModule option http.routeDecorators: the pipe ${pipe} cannot take effect: the MCP endpoint and the ` +
  "playground take no argument a pipe transforms. Put it on a tool's method or class, where the arguments are, " +
  'or make it global';

export const UNRESOLVED_ROUTE_ENHANCER = (kind: string, name: string, reason: string) =>
  `McpModule option http.routeDecorators: the ${kind} ${name} cannot be built where the MCP routes live ` +
  `(McpModule): ${reason} Provide what it injects from a global module, or use McpModule.forRootAsync with the ` +
  `module that exports it in imports (and routeDecorators beside useFactory), or give an instance (new ${name}(...))`;

export const ROUTE_DECORATORS_FROM_FACTORY =
  'McpModule.forRootAsync: http.routeDecorators came from the factory, but Nest reads the routes before any ' +
  'factory runs. Give them beside it: McpModule.forRootAsync({ useFactory, http: { routeDecorators: [...] } })';

export const HTTP_OPTION_BESIDE_FACTORY = (key: string) =>
  `McpModule.forRootAsync: http.${key} beside useFactory is never read: only http.routeDecorators goes there. ` +
  `Return http.${key} from the factory`;

export const CATALOG_WITHOUT_CARD = (server: string) =>
  `MCP server "${server}": http.catalog lists the server by its Server Card, which is not served ` +
  '(http.serverCard is false, or the server has auth, whose card is served only when asked). Set ' +
  'http.serverCard: true to publish the card, or drop http.catalog.';

export const EVENT_EMITTER_MISSING = (place: string, on: string) =>
  `@McpEvent on ${place} listens to the app event "${on}" on @nestjs/event-emitter's emitter, which this app does ` +
  `not provide: import EventEmitterModule.forRoot() from '@nestjs/event-emitter' (npm install @nestjs/event-emitter), ` +
  `or declare the event with MCPServer.addEvent and publish it with MCPServer.publishEvent`;

export const EVENT_NOT_STATIC = (name: string) =>
  `@McpEvent "${name}": the method listens for the app's lifetime, so it must be a method of a singleton (not request-scoped) provider`;

export const THROTTLER_NOT_INSTALLED =
  'McpThrottlerGuard needs @nestjs/throttler: install it (npm install @nestjs/throttler) and import ' +
  'ThrottlerModule.forRoot(...) in the application module';

export const THROTTLER_NOT_LOADED = (error: unknown) =>
  `McpThrottlerGuard could not load @nestjs/throttler: ${error instanceof Error ? error.message : String(error)}`;

export const THROTTLER_NOT_CONFIGURED =
  'McpThrottlerGuard found no throttler configuration: import ThrottlerModule.forRoot(...) in the application module';
