/** Every start-up failure's message, in one place: each names where the problem is and how to fix it. */

export const UNKNOWN_OPTION = (where: string, key: string, place: string | undefined) =>
  `unknown option '${key}' in ${where}${place === undefined ? '' : `; did you mean '${place}'?`}`;

export const OPTION_NOT_A_GROUP = (where: string, key: string, keys: readonly string[], value: unknown) =>
  `option '${key}' in ${where} is a group of options ({ ${keys.join(', ')} }), got ${JSON.stringify(value)}`;

export const MISSING_IDENTITY = 'MCP server options need a "name" and a "version" (strings)';

export const INVALID_LEGACY_MODE = (mode: unknown) =>
  `MCP option legacy.mode must be 'stateless', 'stateful' or 'off', got ${JSON.stringify(mode)}`;

export const NOT_POSITIVE_INTEGER = (option: string, value: unknown) =>
  `${option} must be a positive integer, got ${String(value)}`;

export const STATE_SECRET_EMPTY = 'requestState.secret: give at least one secret (the first signs, every one verifies)';

export const STATE_SECRET_SHORT = 'requestState.secret: every secret must be a string of at least 32 characters';

export const TASK_IMMEDIATE_RESULT_PAST_DEADLINE = (window: number, deadline: number) =>
  `tasks.immediateResultMs (${window}) must be under limits.callTimeoutMs (${deadline}): a call still running at ` +
  `its deadline is stopped, so it could never become a task`;

export const TASK_IMMEDIATE_RESULT_OUT_OF_RANGE = (max: number, value: unknown) =>
  `tasks.immediateResultMs must be false or an integer from 0 to ${max} (milliseconds a call to a tool with ` +
  `optional task support may take to be answered with its result before it becomes a task), got ${String(value)}`;

export const TASK_LEASE_OUT_OF_RANGE = (min: number, max: number, leaseMs: unknown) =>
  `tasks.leaseMs must be an integer from ${min} to ${max} (milliseconds a running task lives without a renewal ` +
  `from its instance, renewed every third of it), got ${String(leaseMs)}`;

export const TASK_QUEUE_NEEDS_SECRET =
  'tasks.queue needs requestState.secret: the call of every queued task is signed with it and a worker runs only ' +
  'a call that verifies, so give the web instances and the workers the same secret (at least 32 characters)';

export const TASK_TTL_TOO_LONG = (max: number, ttlMs: number) => `tasks.ttlMs must be at most ${max}, got ${ttlMs}`;

export const CACHE_TTL = (ttlMs: unknown) => `cache ttlMs must be an integer >= 0, got ${String(ttlMs)}`;

export const CACHE_SCOPE = (scope: unknown) =>
  `cache cacheScope must be "public" or "private", got ${JSON.stringify(scope)}`;

// A registration's failure, whichever layer registers; skills read from a folder.

export const REGISTRATION_FAILED = (place: string, reason: string) => `${place}: ${reason}`;

export const SKILL_FOLDER_UNREADABLE = (directory: string, reason: string) =>
  `skills.directory: ${directory} cannot be read: ${reason}`;

export const SKILL_FOLDER_PROBLEMS = (directory: string, problems: readonly string[]) =>
  `skills.directory ${directory}:\n  ${problems.join('\n  ')}`;

export const DUPLICATE_SKILL = (uri: string) => `${uri} is served twice`;

// Registrations: tools, resources, prompts and their completers, whichever layer declares them.

export const INVALID_NAME = (kind: string, name: unknown) =>
  `Invalid ${kind} name ${JSON.stringify(name)}: use 1-128 characters from [A-Za-z0-9_.-]`;

export const DUPLICATE_NAME = (kind: 'Tool' | 'Prompt', name: string) =>
  `${kind} "${name}" is already registered; ${kind.toLowerCase()} names must be unique`;

export const NAME_REQUIRED = (owner: string) => `${owner}: name is required`;

export const HANDLER_NOT_A_FUNCTION = (owner: string) => `${owner}: handler must be a function`;

export const NOTHING_TO_COMPLETE = (owner: string, what: string, key: string) =>
  `${owner}: no ${what} "${key}" to complete`;

export const INVALID_EXTENSION = (option: string, id: string, anyJson: boolean) =>
  `${option}: ${JSON.stringify(id)} must be an identifier "vendor/name" whose settings are a JSON object` +
  (anyJson ? '' : ' of objects, arrays, strings, integers and booleans (2026-07-28 allows no null and no fraction)');

/** What `registryServerJson` refuses, every problem at once: the fields the MCP Registry would refuse. */
export const REGISTRY_ENTRY_REFUSED = (problems: string[]) => `server.json: ${problems.join('; ')}`;
export const REGISTRY_ENTRY = {
  name: (name: string) =>
    `name ${JSON.stringify(name)} must be "namespace/name" in reverse-DNS form, each part starting and ending ` +
    'with a letter or digit, 3 to 200 characters, e.g. "com.example/weather"',
  description: 'info.description is required, 1 to 100 characters',
  title: 'info.title must be 1 to 100 characters, not only white space',
  version: (field: string, version: string) =>
    `${field} ${JSON.stringify(version)} must be one published version (not a range, not "latest", at most 255 characters)`,
  websiteUrl: (url: string) => `info.websiteUrl ${JSON.stringify(url)} must be an absolute https URL`,
  iconSrc: (i: number, src: unknown) =>
    `info.icons[${i}].src ${JSON.stringify(src)} must be an absolute https URL of at most 255 characters`,
  iconMimeType: (i: number, type: unknown, allowed: readonly string[]) =>
    `info.icons[${i}].mimeType ${JSON.stringify(type)} must be one of ${allowed.join(', ')}`,
  iconSizes: (i: number) => `info.icons[${i}].sizes must be an array of "WxH" or "any"`,
  iconTheme: (i: number) => `info.icons[${i}].theme must be "light" or "dark"`,
  nowhere: 'give the endpoint url, the npm package, or both: an entry must say where the server runs',
  url: (url: string) =>
    `url ${JSON.stringify(url)} must be a public https URL (no localhost, white space or {template})`,
  npm: (identifier: unknown) => `npm.identifier ${JSON.stringify(identifier)} must be a package name without spaces`,
  repositoryUrl: (url: unknown) =>
    `repository.url ${JSON.stringify(url)} must be the https URL of a GitHub or GitLab repository ` +
    '(https://github.com/<owner>/<repo>)',
  repositorySource: (source: unknown) =>
    `repository.source ${JSON.stringify(source)} must be "github" or "gitlab", the forges the registry checks`,
  repositorySubfolder: (subfolder: unknown) =>
    `repository.subfolder ${JSON.stringify(subfolder)} must be a clean relative path (no leading or trailing "/", ` +
    'no "." or ".." segments)',
  publisherProvided: (size: number | undefined) =>
    size === undefined
      ? 'publisherProvided must be an object of JSON values'
      : `publisherProvided is ${size} bytes of JSON, over the 4096 the registry keeps`,
};

export const INVALID_SCOPES = (owner: string) =>
  `${owner}: scopes must be an array of OAuth scope tokens (no spaces, quotes or backslashes)`;

export const INVALID_TASK_SUPPORT = (tool: string, taskSupport: unknown) =>
  `Tool "${tool}": taskSupport must be "optional" or "required", got ${JSON.stringify(taskSupport)}`;

export const INVALID_TASK_RETRY = (tool: string, retry: unknown) =>
  `Tool "${tool}": retry must be an integer from 0 to 100, on a tool with a taskSupport; got ${JSON.stringify(retry)}`;

export const DEFER_TASK_WITHOUT_SUPPORT = (tool: string) => `Tool "${tool}": deferTask needs a taskSupport`;

export const INPUT_SCHEMA_NOT_OBJECT = (tool: string) =>
  `Tool "${tool}": inputSchema must be a JSON Schema object with "type": "object"`;

export const RESOURCE_URI_NOT_ABSOLUTE = (uri: unknown) =>
  `Resource ${JSON.stringify(uri)}: uri must be an absolute URI`;

export const DUPLICATE_RESOURCE = (uri: string, registered: string) =>
  `Resource "${uri}" is already registered (as "${registered}")`;

export const DUPLICATE_RESOURCE_TEMPLATE = (template: string) =>
  `Resource template "${template}" is already registered`;

export const URI_TEMPLATE_WITHOUT_VARIABLE = (template: string) =>
  `Invalid URI template "${template}": expected at least one {variable}`;

// Schemas.

export const INVALID_JSON_SCHEMA = (subject: string, reason: string) => `${subject}: invalid JSON Schema: ${reason}`;

export const UNSUPPORTED_SCHEMA_DIALECT = (subject: string, declared: unknown) =>
  `${subject}: unsupported JSON Schema dialect ${JSON.stringify(declared)} (2020-12 and draft-07 are supported)`;

export const INVALID_SCHEMA = (errors: string) => `schema is invalid: ${errors}`;

export const CONVERTERS_NOT_LOADED = (purpose: string) =>
  `${purpose} needs the converters loaded first: await loadSchemaConverters()`;

export const OLD_ZOD_NEEDS_CONVERTERS = CONVERTERS_NOT_LOADED('A zod schema older than zod 4.2');

// MCP Apps: UI resources and the tools that show them.

export const NOT_AN_OBJECT = (owner: string, key: string) => `${owner}: ${key} must be an object`;

export const UI_URI_WITHOUT_SCHEME = (owner: string) =>
  `${owner}: the uri must start with ui:// (like "ui://weather/card.html")`;

export const UI_WRONG_MIME_TYPE = (owner: string, expected: string, mimeType: unknown) =>
  `${owner}: mimeType must be "${expected}" (the default), got ${JSON.stringify(mimeType)}`;

export const UI_ONE_SOURCE = (owner: string, given: number) =>
  `${owner}: give exactly one of html, file or handler (got ${given})`;

export const UI_HTML_EMPTY = (owner: string) => `${owner}: html must be a non-empty string`;

export const UI_FILE_NOT_A_PATH = (owner: string) => `${owner}: file must be a path`;

export const UI_FILE_UNREADABLE = (owner: string, path: string, code: unknown) =>
  `${owner}: cannot read ${path} (${String(code)}); build the UI first or fix the path`;

export const UI_UNKNOWN_CSP_LIST = (owner: string, key: string, known: readonly string[]) =>
  `${owner}: csp.${key} is not a CSP list (use ${known.join(', ')})`;

export const UI_CSP_NOT_ORIGINS = (owner: string, key: string) =>
  `${owner}: csp.${key} must be a list of origins like "https://api.example.com" or "https://*.cdn.example.com" ` +
  '(http, https, ws or wss, a host, an optional port and path; not "*", a bare scheme or a keyword)';

export const UI_UNKNOWN_PERMISSION = (owner: string, key: string, known: readonly string[]) =>
  `${owner}: permissions.${key} is not a permission (use ${known.join(', ')})`;

export const UI_PERMISSION_NOT_EMPTY = (owner: string, key: string) =>
  `${owner}: permissions.${key} must be {} to ask for it`;

export const UI_DOMAIN_NOT_A_HOST = (owner: string) => `${owner}: domain must be a host name`;

export const UI_PREFERS_BORDER_NOT_BOOLEAN = (owner: string) => `${owner}: prefersBorder must be a boolean`;

export const TOOL_UI_NOT_AN_OBJECT = (owner: string) => `${owner} must be an object with a resourceUri`;

export const TOOL_UI_RESOURCE_URI = (owner: string, resourceUri: unknown) =>
  `${owner}.resourceUri must be a ui:// URI (like "ui://weather/card.html"), got ${JSON.stringify(resourceUri)}`;

export const TOOL_UI_VISIBILITY = (owner: string, visibility: unknown) =>
  `${owner}.visibility must list "model" and/or "app" once each, got ${JSON.stringify(visibility)}`;

// Authorization (`auth`).

export const AUTH_ONE_WAY = (ways: readonly string[]) =>
  `auth needs exactly one of jwt, introspection, verify and fromRequest; got ${ways.length === 0 ? 'none' : ways.join(', ')}`;

export const AUTH_TO_USER_WITH_FROM_REQUEST =
  'auth.toUser maps a principal the module verified; with auth.fromRequest, request.user is already the app’s own';

export const AUTH_SERVERS_REQUIRED =
  'auth.authorizationServers needs at least one issuer URL with jwt.jwksUri, jwt.jwks or introspection';

export const NOT_MILLISECONDS = (option: string, value: unknown) =>
  `${option} must be a number of milliseconds, 0 or more, got ${String(value)}`;

export const INTROSPECTION_RATE = (perSecond: unknown) =>
  `auth.introspection.maxCallsPerSecond must be a positive number (Infinity disables it), got ${String(perSecond)}`;

export const JWT_ONE_KEY_SOURCE = (sources: readonly string[]) =>
  `auth.jwt needs exactly one of jwksUri, jwks and secret; got ${sources.length === 0 ? 'none' : sources.join(', ')}`;

export const JWT_ISSUER_REQUIRED = 'auth.jwt.issuer is required with jwksUri or jwks (it is optional with secret)';

export const JWT_TYP_EMPTY = 'auth.jwt.typ needs at least one type, or false to accept any';

export const JWT_HMAC_WITHOUT_SECRET = (hmac: readonly string[]) =>
  `auth.jwt.algorithms names ${hmac.join(', ')}: HMAC needs auth.jwt.secret, not a key set`;

export const JWT_SECRET_ALGORITHMS = (algorithms: unknown) =>
  `auth.jwt.algorithms with a secret takes HS256, HS384 and HS512 only; got ${JSON.stringify(algorithms)}`;

export const JWT_SECRET_SHORT = (bytes: number, algorithms: readonly string[], needed: number) =>
  `auth.jwt.secret has ${bytes} bytes; ${algorithms.join(', ')} needs at least ${needed} (RFC 7518 §3.2): use a ` +
  'longer random secret';

export const JOSE_UNAVAILABLE = (reason: string) =>
  `auth.jwt verifies tokens with the ESM-only package "jose", which this runtime could not import (${reason}). ` +
  "Under jest's CommonJS runtime, run jest with NODE_OPTIONS=--experimental-vm-modules (the jest config stays as " +
  'it is), or verify tokens yourself with auth.verify or auth.introspection.';

export const URL_NOT_ABSOLUTE = (option: string, value: unknown) =>
  `${option} must be an absolute URL, got ${JSON.stringify(value)}`;

export const URL_NOT_HTTPS = (option: string, protocol: string) => `${option} must be an https URL, got ${protocol}`;

export const URL_INSECURE_HTTP = (option: string, host: string) =>
  `${option} is plain http on a non-loopback host (${host}): keys and token verdicts could be tampered with in ` +
  'transit. Use https, or set allowInsecureHttp: true if the network to it is trusted.';

export const RESOURCE_NOT_ABSOLUTE = (uri: unknown) =>
  `auth.resource must be an absolute URI, got ${JSON.stringify(uri)}`;

export const RESOURCE_WITH_FRAGMENT = 'auth.resource must not contain a fragment';

export const RESOURCE_NOT_HTTP = 'auth.resource must be an http(s) URI';

export const DUPLICATE_UPSTREAM_PREFIX = (prefix: string) =>
  prefix === ''
    ? "upstreams: two entries have prefix '' (mounted unchanged); at most one upstream may keep its names"
    : `upstreams: two entries have prefix "${prefix}"; each upstream needs a prefix of its own`;

export const UPSTREAM_CLASH = (what: string, key: string, first: string, second: string) =>
  `upstreams: ${what} "${key}" is offered by ${first} and by ${second}; give the upstreams prefixes that keep ` +
  'their names apart, or rename the local primitive';

export const UPSTREAM_INVALID = (index: number, problem: string) => `upstreams[${index}]: ${problem}`;

export const WEBHOOK_TTL_ORDER =
  'events.webhooks: minTtlMs and defaultTtlMs must not exceed maxTtlMs; raise maxTtlMs or lower the others';

export const WEBHOOK_ALLOW_HOSTS =
  'events.webhooks.allowHosts must be a list of hostnames or IP addresses, without scheme or path ' +
  '(a port is ignored; e.g. ["localhost", "10.0.0.7"])';
