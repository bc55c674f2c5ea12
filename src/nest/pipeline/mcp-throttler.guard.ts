import { Injectable, type CanActivate, type ExecutionContext, type OnModuleInit } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { McpError } from '../../protocol/mcp-error.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { callerSourceOf, McpContext } from '../../server/mcp-context.js';
import { canonicalDigest } from '../../server/util/canonical-digest.js';
import { requireFromLibrary } from '../../server/util/library-require.cjs';
import { McpParamtype } from './mcp-paramtype.enum.js';
import { THROTTLER_NOT_CONFIGURED, THROTTLER_NOT_INSTALLED, THROTTLER_NOT_LOADED } from '../mcp-messages.js';
import { MCP_ENDPOINT_METADATA, MCP_VISIBILITY_PROBE_METADATA } from '../mcp-metadata.constants.js';

/** What this guard uses of `@nestjs/throttler`, loaded on the guard's first construction: an optional peer. */
interface ThrottlerPackage {
  ThrottlerGuard: ThrottlerGuardClass;
  getOptionsToken(): string;
  getStorageToken(): string | symbol;
}

type ThrottlerGuardClass = (new (...args: unknown[]) => object) & { prototype: ThrottlerGuardMethods };

interface ThrottlerGuardMethods {
  onModuleInit(): Promise<void>;
  canActivate(context: ExecutionContext): Promise<boolean>;
  getTracker(req: Record<string, unknown>): Promise<string>;
  throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void>;
  getErrorMessage(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<string>;
}

/** The throttler's account of a refused request: `timeToBlockExpire` is in seconds. */
interface ThrottlerLimitDetail {
  limit: number;
  totalHits: number;
  timeToBlockExpire: number;
}

const LISTS = /\/list$|^server\/discover$/;

let throttler: ThrottlerPackage | undefined;

/**
 * `@nestjs/throttler`, with `McpThrottlerGuard` made its `ThrottlerGuard`'s subclass the first time: an app that
 * does not throttle never loads it, and importing `nestjs-mcp` does not need it installed.
 */
function throttlerPackage(): ThrottlerPackage {
  if (throttler) return throttler;
  try {
    throttler = requireFromLibrary('@nestjs/throttler') as ThrottlerPackage;
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'MODULE_NOT_FOUND';
    throw new McpConfigurationError(missing ? THROTTLER_NOT_INSTALLED : THROTTLER_NOT_LOADED(error), { cause: error });
  }
  // The instances' chain only: the class keeps its own constructor metadata (the throttler's injection tokens are
  // not its parameters).
  Object.setPrototypeOf(McpThrottlerGuard.prototype, throttler.ThrottlerGuard.prototype);
  return throttler;
}

/**
 * `@nestjs/throttler`'s `ThrottlerGuard` for MCP: `@UseGuards(McpThrottlerGuard)` on a tools provider (or one
 * of its methods) and `@Throttle()` / `@SkipThrottle()` on its tools, resources and prompts, configured by
 * `ThrottlerModule.forRoot(...)` and its storage, as for routes; or as a global `APP_GUARD`, where it limits the
 * app's routes and every tool, resource and prompt (not the MCP endpoint's POST as such). On an MCP call each
 * tool, resource and prompt has its own counter per caller: the caller identity that tasks and request state are
 * bound to (`auth.identify`, else the token's subject) with what `requestState.bind` reads, or the client address
 * when nobody is signed in. A refused call answers -32023 with `retryAfterMs`, `limit` and `remaining` (HTTP 429
 * with `Retry-After`); a list is never counted nor refused. On any other request it is the `ThrottlerGuard` it
 * extends.
 */
@Injectable()
export class McpThrottlerGuard implements CanActivate, OnModuleInit {
  declare private moduleRef: ModuleRef;

  constructor(moduleRef: ModuleRef) {
    const { ThrottlerGuard } = throttlerPackage();
    // The throttler's own constructor sets its defaults; its options and storage are read in onModuleInit, once
    // every module's providers exist (the storage's token belongs to the optional package, so it cannot be
    // declared here as a constructor parameter).
    const guard = Reflect.construct(ThrottlerGuard, [undefined, undefined, undefined], new.target) as this;
    guard.moduleRef = moduleRef;
    return guard;
  }

  async onModuleInit(): Promise<void> {
    const { ThrottlerGuard, getOptionsToken, getStorageToken } = throttlerPackage();
    const fields = this as unknown as Record<string, unknown>;
    try {
      fields.options = this.moduleRef.get(getOptionsToken(), { strict: false });
      fields.storageService = this.moduleRef.get(getStorageToken(), { strict: false });
    } catch (error) {
      throw new McpConfigurationError(THROTTLER_NOT_CONFIGURED, { cause: error });
    }
    fields.reflector = this.moduleRef.get(Reflector, { strict: false });
    await ThrottlerGuard.prototype.onModuleInit.call(this);
  }

  canActivate(context: ExecutionContext): Promise<boolean> {
    // Global, it also guards the MCP endpoint's route: the calls a POST carries are counted where each runs.
    if (context.getType() === 'http' && Reflect.getMetadata(MCP_ENDPOINT_METADATA, context.getClass()) === true)
      return Promise.resolve(true);
    // Lists are never counted. Whether a caller sees a primitive (`hideForbidden`, asked by lists and by every
    // request that names it) is not its limit's business either: a spent limit refuses the call, it never hides
    // the tool, and asking is not a call.
    const method = mcpCallOf(context)?.method;
    if (method !== undefined && LISTS.test(method)) return Promise.resolve(true);
    if (Reflect.getMetadata(MCP_VISIBILITY_PROBE_METADATA, context.getHandler()) === true) return Promise.resolve(true);
    return throttlerPackage().ThrottlerGuard.prototype.canActivate.call(this, context);
  }

  protected async getTracker(req: Record<string, unknown>, context?: ExecutionContext): Promise<string> {
    const byAddress = throttlerPackage().ThrottlerGuard.prototype.getTracker.call(this, req);
    const call = context && mcpCallOf(context);
    if (!call) return byAddress;
    const { caller, bound } = callerSourceOf(call)?.callerKey() ?? {};
    const who = caller === undefined ? `address:${await byAddress}` : `caller:${caller}`;
    return bound === undefined ? who : canonicalDigest([who, bound]);
  }

  protected async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const base = throttlerPackage().ThrottlerGuard.prototype;
    if (!mcpCallOf(context)) return base.throwThrottlingException.call(this, context, detail);
    throw McpError.rateLimited(await base.getErrorMessage.call(this, context, detail), {
      retryAfterMs: Math.max(1, detail.timeToBlockExpire) * 1000,
      limit: detail.limit,
      remaining: Math.max(0, detail.limit - detail.totalHits),
    });
  }
}

function mcpCallOf(context: ExecutionContext): McpContext | undefined {
  if (context.getType<string>() !== 'mcp') return undefined;
  const call: unknown = context.getArgByIndex(McpParamtype.CONTEXT);
  return call instanceof McpContext ? call : undefined;
}
