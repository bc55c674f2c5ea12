import type { Logger } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { UPSTREAM_INVALID } from '../../server/errors/configuration-messages.js';
import { rejectUnknownOptions } from '../../server/errors/unknown-options.js';
import type { McpKernel } from '../../server/kernel/mcp-kernel.js';
import { UpstreamGateway, type UpstreamMount } from '../../server/upstreams/upstream-gateway.js';
import { isStdioUpstream, UPSTREAM_OPTION_KEYS } from '../../server/upstreams/upstream-options.js';
import type { McpModuleUpstream } from './upstream-options.interface.js';
import { upstreamGuards } from './upstream-guards.js';

const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** A prefix joins a name with `_`: it must keep the mounted name a valid tool name. */
const PREFIX = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * The server's `upstreams`, checked and ready to mount (null without any: the SDK's client is then never
 * loaded). McpModule mounts them once every local primitive is registered, so a clash with one is seen.
 */
export async function createUpstreamGateway(
  options: UpstreamsOptions,
  kernel: McpKernel,
  moduleRef: ModuleRef,
  logger: Logger,
): Promise<UpstreamGateway | null> {
  const entries = options.upstreams ?? [];
  if (entries.length === 0) return null;
  const mounts = await Promise.all(
    entries.map(async (entry, index): Promise<UpstreamMount> => {
      checkUpstream(entry, index);
      const { guards = [], ...upstream } = entry;
      if (guards.length === 0) return { options: upstream };
      const { gate, visible } = await upstreamGuards(moduleRef, guards, `upstream "${entry.prefix}"`, logger);
      return { options: upstream, gate, visible: options.hideForbidden ? visible : undefined };
    }),
  );
  return new UpstreamGateway(kernel, mounts, options.http?.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, {
    error: (message, error) => logger.error(message, error instanceof Error ? error.stack : undefined),
    warn: (message) => logger.warn(message),
    log: (message) => logger.log(message),
  });
}

/** What of the module's options the upstreams read. */
interface UpstreamsOptions {
  upstreams?: McpModuleUpstream[];
  hideForbidden?: boolean;
  http?: { maxResponseBytes?: number };
}

function checkUpstream(entry: McpModuleUpstream, index: number): void {
  rejectUnknownOptions(entry, { ...UPSTREAM_OPTION_KEYS, guards: true }, `McpModule options upstreams[${index}]`);
  const fail = (problem: string) => new McpConfigurationError(UPSTREAM_INVALID(index, problem));
  if (typeof entry.prefix !== 'string') throw fail("prefix is required (a name, or '' to mount names unchanged)");
  if (entry.prefix !== '' && !PREFIX.test(entry.prefix))
    throw fail(`prefix "${entry.prefix}" must be letters, digits, '_', '-' or '.' (at most 64)`);
  const stdio = isStdioUpstream(entry);
  const url = (entry as { url?: unknown }).url;
  if (stdio === (url !== undefined)) throw fail('give either url (Streamable HTTP) or command (stdio), not both');
  if (!stdio && !URL.canParse(String(url))) throw fail(`url must be an absolute URL, got ${JSON.stringify(url)}`);
  if (stdio && 'headers' in entry) throw fail('headers apply to an HTTP upstream (url); a stdio upstream has none');
}
