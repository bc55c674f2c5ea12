import type { FactoryProvider, Logger } from '@nestjs/common';
import { isResourceServer } from '../../auth/tokens/auth-options.js';
import { canonicalResourceUri } from '../../auth/protected-resource-metadata.js';
import { callEventInterceptor } from '../../observability/call-events.js';
import { deferredOpenTelemetryInterceptor } from '../../observability/open-telemetry.js';
import type { HandlerErrorLogger } from '../../server/failures/handler-error-policy.js';
import { McpKernel } from '../../server/kernel/mcp-kernel.js';
import { rejectUnknownOptions, type OptionKeys } from '../../server/errors/unknown-options.js';
import { SERVER_OPTION_KEYS } from '../../server/kernel/mcp-server-options.js';
import { loadLegacyZodConverter } from '../../server/schema/schema-converter.js';
import { logHandlerError, type McpLogger } from '../../server/mcp-logger.js';
import { callLoggingObserver } from '../pipeline/mcp-call-logger.js';
import type { McpModuleDefinitionKey, McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_KERNEL, MCP_LOGGER } from '../mcp.constants.js';
import { DEFINITION_OPTION_IN_FACTORY, GENERATED_STATE_SECRET } from '../mcp-messages.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';

const { logger: _logger, ...SHARED_OPTION_KEYS } = SERVER_OPTION_KEYS;

/** Every key of `McpModuleOptions`: the kernel's (but its logger, which is Nest's), the module's own groups. */
const MODULE_OPTION_KEYS = {
  ...SHARED_OPTION_KEYS,
  auth: true,
  include: true,
  http: {
    maxBodyBytes: true,
    bodyTimeoutMs: true,
    maxResponseBytes: true,
    sseKeepAliveMs: true,
    drainTimeoutMs: true,
    cors: true,
    allowedHosts: true,
    allowedOrigins: true,
    hostOriginCheck: true,
    version: true,
    routeDecorators: true,
    serverTimeouts: true,
    serverCard: true,
    catalog: true,
  },
  observability: { ...SHARED_OPTION_KEYS.observability, logFailedCalls: true, telemetry: true, onCall: true },
  routes: { controllers: true, forwardHeaders: true, maxResponseBytes: true },
  upstreams: true,
} as const satisfies OptionKeys<McpModuleOptions>;

/** The extras `forRoot` takes out of the options: found in them, they came from a `forRootAsync` factory. */
const DEFINITION_KEYS = {
  path: true,
  isGlobal: true,
  isDefault: true,
  playground: true,
} as const satisfies Record<McpModuleDefinitionKey, true>;

/** With the call logger on, an unexpected handler error is its one line (same reference id). */
const reportedByCallLogger: HandlerErrorLogger = () => {};

/**
 * Builds one server's kernel with Nest's logging: one `Logger` for everything the kernel and the call logger
 * write, then the interceptors in order (call logging, `onCall`, and tracing outermost, so its span covers the
 * others' work too).
 */
async function createKernel(options: McpModuleOptions, logger: Logger): Promise<McpKernel> {
  // forRoot and forRootAsync both arrive here first, so a factory's options are checked like forRoot's.
  const misplaced = Object.keys(options).find((key) => Object.hasOwn(DEFINITION_KEYS, key));
  if (misplaced) throw new McpConfigurationError(DEFINITION_OPTION_IN_FACTORY(misplaced));
  rejectUnknownOptions(options, MODULE_OPTION_KEYS, 'McpModule options');
  // Registration is synchronous; the one converter it cannot load on first use is loaded here, if it can be needed.
  await loadLegacyZodConverter();
  const kernelLogger = nestLogger(logger);
  const {
    http: _http,
    auth,
    include: _include,
    routes: _routes,
    upstreams: _upstreams,
    observability = {},
    ...kernelOptions
  } = options;
  const onHandlerError: HandlerErrorLogger =
    observability.onHandlerError ??
    (observability.logFailedCalls === false
      ? (error, report) => logHandlerError(kernelLogger, error, report)
      : reportedByCallLogger);
  // With auth, request state is bound to the protected resource too: servers sharing a secret cannot replay each other's.
  const audience =
    options.requestState?.audience ?? (isResourceServer(auth) ? canonicalResourceUri(auth.resource) : undefined);
  const kernel = new McpKernel({
    ...kernelOptions,
    auth: auth?.identify ? { identify: auth.identify } : undefined,
    requestState: { ...options.requestState, audience },
    observability: { redactErrors: observability.redactErrors, onHandlerError },
    logger: kernelLogger,
  });
  await kernel.loadSkills();
  if (kernel.usesGeneratedStateSecret) {
    logger.warn(GENERATED_STATE_SECRET(options.name));
  }
  if (observability.logFailedCalls !== false) kernel.observe(callLoggingObserver(logger));
  if (observability.onCall) kernel.intercept(callEventInterceptor(observability.onCall));
  const telemetry = observability.telemetry ?? true;
  if (telemetry !== false) kernel.intercept(deferredOpenTelemetryInterceptor(telemetry === true ? {} : telemetry));
  return kernel;
}

/** Nest's `Logger` takes a stack where the kernel hands over the error. */
function nestLogger(logger: Logger): McpLogger {
  return {
    error: (message, error) => logger.error(message, error instanceof Error ? error.stack : undefined),
    warn: (message) => logger.warn(message),
    log: (message) => logger.log(message),
  };
}

export const mcpKernelProvider: FactoryProvider<Promise<McpKernel>> = {
  provide: MCP_KERNEL,
  useFactory: createKernel,
  inject: [MCP_MODULE_OPTIONS, MCP_LOGGER],
};
