import { Injectable } from '@nestjs/common';
import { Content, RequireScopes, Tool } from '../../src/index.js';
import type { CallToolResult, ContentBlock } from '../../src/index.js';
import { TEST_AUDIO_BASE64, TEST_IMAGE_BASE64 } from './fixture-data.js';
import { fixtureScopes } from './scope-challenge.js';

/**
 * The content tools of the tools-call-* scenarios: each returns its blocks through the `Content` helpers.
 * `test_simple_text` is the first tool of the app (this provider comes first in the module): the SEP-2243
 * header probes call the first listed tool with `{}`. A `@Tool` without `inputSchema` takes no arguments.
 */
@Injectable()
export class ContentTools {
  @Tool({ name: 'test_simple_text', description: 'Tests simple text content response' })
  @RequireScopes(...fixtureScopes('mcp:conformance:tools:call', 'mcp:conformance:tools:test_simple_text'))
  simpleText(): ContentBlock {
    return Content.text('This is a simple text response for testing.');
  }

  @Tool({ name: 'test_image_content', description: 'Tests image content response' })
  image(): ContentBlock {
    return Content.image(TEST_IMAGE_BASE64, 'image/png');
  }

  @Tool({ name: 'test_audio_content', description: 'Tests audio content response' })
  audio(): ContentBlock {
    return Content.audio(TEST_AUDIO_BASE64, 'audio/wav');
  }

  @Tool({ name: 'test_embedded_resource', description: 'Tests embedded resource content response' })
  embeddedResource(): ContentBlock {
    return Content.textResource('test://embedded-resource', 'This is an embedded resource content.');
  }

  @Tool({
    name: 'test_multiple_content_types',
    description: 'Tests response with multiple content types (text, image, resource)',
  })
  multipleContentTypes(): ContentBlock[] {
    return [
      Content.text('Multiple content types test:'),
      Content.image(TEST_IMAGE_BASE64, 'image/png'),
      Content.textResource(
        'test://mixed-content-resource',
        JSON.stringify({ test: 'data', value: 123 }),
        'application/json',
      ),
    ];
  }

  /** A tool-level failure is a result with `isError`, which the model sees; a protocol error would not be. */
  @Tool({ name: 'test_error_handling', description: 'Tests error response handling' })
  errorHandling(): CallToolResult {
    return { isError: true, content: [Content.text('This tool intentionally returns an error for testing')] };
  }
}
