import { Injectable } from '@nestjs/common';
import { Args, McpContext, McpCtx, RequireScopes, Resource, ResourceTemplate } from '../../src/index.js';
import { completeFrom } from './complete-from.js';
import { TEST_IMAGE_BASE64 } from './fixture-data.js';
import { fixtureScopes, requireTemplateScopes } from './scope-challenge.js';

/**
 * The resources of the resources-* and caching scenarios. A handler returns text (a text resource) or bytes
 * (a base64 blob); the declared `mimeType` goes with it. A readable resource is listed first.
 */
@Injectable()
export class ConformanceResources {
  @Resource({
    uri: 'test://static-text',
    name: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
  })
  @RequireScopes(...fixtureScopes('mcp:conformance:resources:read', 'mcp:conformance:resources:static'))
  staticText(): string {
    return 'This is the content of the static text resource.';
  }

  @Resource({
    uri: 'test://static-binary',
    name: 'Static Binary Resource',
    description: 'A static binary resource (image/png) for testing',
    mimeType: 'image/png',
  })
  staticBinary(): Uint8Array {
    return Buffer.from(TEST_IMAGE_BASE64, 'base64');
  }

  /** `@Args('id')` is the value the URI matched for `{id}`; `complete` answers completion/complete for it. */
  @ResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'Resource Template',
    description: 'A resource template with an id variable',
    mimeType: 'application/json',
    complete: { id: completeFrom(['1', '2', '3', '123']) },
  })
  templateData(@Args('id') id: string, @McpCtx() ctx: McpContext): string {
    requireTemplateScopes(ctx.principal, id);
    return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
  }

  /** What resources-subscribe and -unsubscribe name; a stateless server accepts the subscription and has no stream to notify on. */
  @Resource({
    uri: 'test://watched-resource',
    name: 'Watched Resource',
    description: 'A resource clients subscribe to',
    mimeType: 'text/plain',
  })
  watched(): string {
    return 'Watched resource content';
  }
}
