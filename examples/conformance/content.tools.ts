import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Content, MCPServer, type McpContext } from '../../src/index.js';
import { JSON_SCHEMA_2020_12, NO_ARGUMENTS, sleep, TEST_AUDIO_BASE64, TEST_IMAGE_BASE64 } from './fixture-data.js';

/**
 * The content tools of the tools-call-* scenarios, the progress tool, and the two pending-scenario tools.
 * `test_simple_text` is registered first: the SEP-2243 header probes call the first listed tool with `{}`.
 */
@Injectable()
export class ContentTools implements OnModuleInit {
  constructor(private readonly server: MCPServer) {}

  onModuleInit(): void {
    const server = this.server;
    server.addTool({
      name: 'test_simple_text',
      description: 'Tests simple text content response',
      inputSchema: NO_ARGUMENTS,
      handler: () => Content.text('This is a simple text response for testing.'),
    });
    server.addTool({
      name: 'test_image_content',
      description: 'Tests image content response',
      inputSchema: NO_ARGUMENTS,
      handler: () => Content.image(TEST_IMAGE_BASE64, 'image/png'),
    });
    server.addTool({
      name: 'test_audio_content',
      description: 'Tests audio content response',
      inputSchema: NO_ARGUMENTS,
      handler: () => Content.audio(TEST_AUDIO_BASE64, 'audio/wav'),
    });
    server.addTool({
      name: 'test_embedded_resource',
      description: 'Tests embedded resource content response',
      inputSchema: NO_ARGUMENTS,
      handler: () => Content.textResource('test://embedded-resource', 'This is an embedded resource content.'),
    });
    server.addTool({
      name: 'test_multiple_content_types',
      description: 'Tests response with multiple content types (text, image, resource)',
      inputSchema: NO_ARGUMENTS,
      handler: () => [
        Content.text('Multiple content types test:'),
        Content.image(TEST_IMAGE_BASE64, 'image/png'),
        Content.textResource('test://mixed-content-resource', JSON.stringify({ test: 'data', value: 123 }), 'application/json'),
      ],
    });
    server.addTool({
      name: 'test_error_handling',
      description: 'Tests error response handling',
      inputSchema: NO_ARGUMENTS,
      handler: () => ({ isError: true, content: [Content.text('This tool intentionally returns an error for testing')] }),
    });
    server.addTool({
      name: 'test_tool_with_progress',
      description: 'Tests tool that reports progress notifications',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args: object, _inputs: unknown, ctx: McpContext) => {
        for (const progress of [0, 50, 100]) {
          if (progress > 0) await sleep(50);
          ctx.reportProgress({ progress, total: 100, message: `Completed step ${progress} of 100` });
        }
        return Content.text(String(ctx.progressToken ?? 'no progress token'));
      },
    });
    server.addTool({
      name: 'json_schema_2020_12_tool',
      description: 'Tests JSON Schema 2020-12 keyword preservation (published verbatim)',
      inputSchema: JSON_SCHEMA_2020_12,
      handler: () => Content.text('ok'),
    });
    server.addTool({
      name: 'test_x_mcp_header',
      description: 'Tests SEP-2243 custom headers: "region" is mirrored in the Mcp-Param-Region header',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, level: { type: 'integer' } },
      },
      handler: (args: { region?: string; level?: number }) => Content.text(`region=${args.region ?? '(none)'} level=${args.level ?? '(none)'}`),
    });
  }
}
