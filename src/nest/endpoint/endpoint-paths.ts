import { VERSION_NEUTRAL, VersioningType } from '@nestjs/common';
import type { VersionValue } from '@nestjs/common/interfaces/version-options.interface.js';
import type { ApplicationConfig } from '@nestjs/core';
import { joinPath } from '../join-path.js';

/** Where Nest serves an MCP endpoint declared at `path`: under the global prefix, and under each URI version it answers. */
export function endpointPaths(config: ApplicationConfig, path: string, version: VersionValue | undefined): string[] {
  const prefix = config.getGlobalPrefix();
  const versioning = config.getVersioning();
  if (versioning?.type !== VersioningType.URI) return [joinPath(prefix, path)];
  const segment = versioning.prefix === false ? '' : (versioning.prefix ?? 'v');
  return [version ?? VERSION_NEUTRAL]
    .flat()
    .map((each) =>
      each === VERSION_NEUTRAL ? joinPath(prefix, path) : joinPath(prefix, `${segment}${String(each)}`, path),
    );
}
