import 'reflect-metadata';
import { VersioningType, type VersioningOptions } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { z } from 'zod';
import { MCPServer, type McpModuleOptions } from '../../src/index.js';
import { BackendRecord, createBackend, Public } from './backend-app.js';
import type { HttpAdapterName } from './create-app.js';

/** The realistic backend's `main.ts`, configured from the environment by `BackendProcess`. */
const VERSIONING: Record<string, VersioningOptions | undefined> = {
  uri: { type: VersioningType.URI, defaultVersion: '1' },
  'uri-no-default': { type: VersioningType.URI },
  header: { type: VersioningType.HEADER, header: 'X-API-Version', defaultVersion: '1' },
  'media-type': { type: VersioningType.MEDIA_TYPE, key: 'v=', defaultVersion: '1' },
  none: undefined,
};

const env = process.env;
const http: NonNullable<McpModuleOptions['http']> = {};
if (env.BACKEND_MCP_VERSION) http.version = env.BACKEND_MCP_VERSION;
if (env.BACKEND_PUBLIC_ROUTE) http.routeDecorators = [Public(), SkipThrottle()];

const app = await createBackend(env.BACKEND_ADAPTER as HttpAdapterName, VERSIONING[env.BACKEND_VERSIONING ?? 'uri'], {
  http,
});
const server = app.get(MCPServer);
const { received } = app.get(BackendRecord);
server.registerTool(
  'rename',
  'Renames a product',
  z.object({ sku: z.string().toUpperCase(), name: z.string() }),
  (args) => {
    received.push(args);
    return 'renamed';
  },
);
server.addTool({
  name: 'restock',
  description: 'Restocks a product',
  inputSchema: z.object({ sku: z.string(), count: z.coerce.number().default(10) }),
  outputSchema: z.object({ sku: z.string(), count: z.number() }),
  handler: (args) => {
    received.push(args);
    return { ...args, warehouse: 'internal-7' };
  },
});
server.registerTool(
  'tag',
  'Tags a product (plain JSON Schema)',
  {
    type: 'object',
    properties: { sku: { type: 'string' }, tag: { type: 'string', default: 'new' } },
    required: ['sku'],
    additionalProperties: false,
  },
  (args) => {
    received.push(args);
    return 'tagged';
  },
);
await app.listen(Number(env.PORT), '127.0.0.1');
process.stdout.write(`listening on ${env.PORT}\n`);
