import { Injectable, type OnModuleInit } from '@nestjs/common';
import { MCPServer } from '../../src/index.js';
import { TEST_IMAGE_BASE64 } from './fixture-data.js';

/** The resources of the resources-* and caching scenarios; a readable resource is listed first. */
@Injectable()
export class ConformanceResources implements OnModuleInit {
  constructor(private readonly server: MCPServer) {}

  onModuleInit(): void {
    this.server.addResource({
      uri: 'test://static-text',
      name: 'Static Text Resource',
      description: 'A static text resource for testing',
      mimeType: 'text/plain',
      handler: () => 'This is the content of the static text resource.',
    });
    this.server.addResource({
      uri: 'test://static-binary',
      name: 'Static Binary Resource',
      description: 'A static binary resource (image/png) for testing',
      mimeType: 'image/png',
      handler: () => Buffer.from(TEST_IMAGE_BASE64, 'base64'),
    });
    this.server.addResourceTemplate({
      uriTemplate: 'test://template/{id}/data',
      name: 'Resource Template',
      description: 'A resource template with an id variable',
      mimeType: 'application/json',
      handler: (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      complete: { id: (value) => ['1', '2', '3', '123'].filter((id) => id.startsWith(value)) },
    });
  }
}
