import {
  outcomeOf,
  PASSES_THROUGH,
  type McpCall,
  type McpCallInterceptor,
  type PassingInterceptor,
} from '../server/mcp-call.js';

type OtelApi = typeof import('@opentelemetry/api');
type Attributes = Record<string, string | number | boolean>;

export interface OpenTelemetryOptions {
  /** The instrumentation scope name of the tracer. Default `nestjs-mcp`. */
  tracerName?: string;
}

/**
 * Loads `@opentelemetry/api` (an optional peer dependency) once and returns an interceptor that traces every
 * call, or undefined when the package is not installed: then nothing is wrapped and requests pay nothing.
 */
export async function loadOpenTelemetryInterceptor(
  options: OpenTelemetryOptions = {},
): Promise<McpCallInterceptor | undefined> {
  let api: OtelApi;
  try {
    api = await import('@opentelemetry/api');
  } catch {
    return undefined;
  }
  return openTelemetryInterceptor(api, options);
}

// Where every 1.x copy of `@opentelemetry/api` keeps what was registered globally: `trace` is set once an SDK
// registers its tracer provider, and deleted again by `trace.disable()`.
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/** Whether no SDK registered a tracer provider: the kernel asks it of every call, so it is one function. */
function noTracerProvider(): boolean {
  return (globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_API_GLOBAL]?.trace === undefined;
}

/**
 * The tracing interceptor of `loadOpenTelemetryInterceptor`, with `@opentelemetry/api` loaded by the first call
 * made after an SDK registered a tracer provider: a server without an SDK never loads the API, and starts
 * without its modules. Until then a call only looks the provider up on `globalThis`.
 */
export function deferredOpenTelemetryInterceptor(options: OpenTelemetryOptions = {}): McpCallInterceptor {
  let tracing: Promise<McpCallInterceptor | undefined> | undefined;
  // Not an async function: without an SDK, a call passes straight through, with no promise of this layer's own.
  const interceptor: PassingInterceptor = (call, next) => {
    if (noTracerProvider()) return next();
    return (tracing ??= loadOpenTelemetryInterceptor(options)).then((loaded) => (loaded ? loaded(call, next) : next()));
  };
  // Until then the kernel need not run it at all.
  interceptor[PASSES_THROUGH] = noTracerProvider;
  return interceptor;
}

const metaGetter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/**
 * A SERVER span per call, following the OpenTelemetry semantic conventions for MCP: named
 * `{mcp.method.name} {target}` (the tool or prompt name; never the resource URI, which is high-cardinality),
 * parented on the trace context the client put in `params._meta` (`traceparent`, `tracestate`), and active
 * while the handler runs so the handler's own spans nest under it.
 */
function openTelemetryInterceptor(api: OtelApi, options: OpenTelemetryOptions): McpCallInterceptor {
  const tracer = api.trace.getTracer(options.tracerName ?? 'nestjs-mcp');
  // The API alone (no SDK registered) only makes non-recording spans: skip the work until an SDK is there,
  // checked per call because an app may register its SDK after this module started.
  const noSdk = new api.ProxyTracerProvider().getDelegate();
  const sdkRegistered = () =>
    (api.trace.getTracerProvider() as { getDelegate?: () => unknown }).getDelegate?.() !== noSdk;
  return (call, next) => {
    if (!sdkRegistered()) return next();
    const parent = api.propagation.extract(api.ROOT_CONTEXT, call.meta, metaGetter);
    const name = call.name === undefined ? call.method : `${call.method} ${call.name}`;
    return tracer.startActiveSpan(
      name,
      { kind: api.SpanKind.SERVER, attributes: spanAttributes(call) },
      parent,
      async (span) => {
        try {
          const response = await next();
          const outcome = outcomeOf(response);
          if (outcome.errorType !== undefined) {
            span.setAttribute('error.type', outcome.errorType);
            if (outcome.errorCode !== undefined)
              span.setAttribute('rpc.response.status_code', String(outcome.errorCode));
            span.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome.message });
          }
          if (call.error instanceof Error) span.recordException(call.error);
          return response;
        } finally {
          span.end();
        }
      },
    );
  };
}

function spanAttributes(call: McpCall): Attributes {
  const attributes: Attributes = { 'mcp.method.name': call.method };
  if (call.requestId !== null) attributes['jsonrpc.request.id'] = String(call.requestId);
  if (call.protocolVersion !== undefined) attributes['mcp.protocol.version'] = call.protocolVersion;
  if (call.method === 'tools/call' && call.name !== undefined) {
    attributes['gen_ai.tool.name'] = call.name;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (call.method === 'prompts/get' && call.name !== undefined) attributes['gen_ai.prompt.name'] = call.name;
  if (call.uri !== undefined) attributes['mcp.resource.uri'] = call.uri;
  if (call.httpRequest !== undefined) {
    attributes['network.transport'] = 'tcp';
    attributes['network.protocol.name'] = 'http';
  }
  return attributes;
}
