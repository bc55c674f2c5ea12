import { Injectable } from '@nestjs/common';
import { Args, Content, Tool } from '../../src/index.js';
import type { ContentBlock } from '../../src/index.js';
import { JSON_SCHEMA_2020_12 } from './fixture-data.js';

interface RegionArgs {
  region?: string;
  level?: number;
}

/**
 * The tools of the pending scenarios, where the input schema is what is tested: a JSON Schema 2020-12 document
 * published verbatim (json-schema-2020-12), and an `x-mcp-header` annotation whose `Mcp-Param-Region` header
 * must match the `region` argument (http-header-validation, http-custom-header-server-validation).
 */
@Injectable()
export class SchemaTools {
  /** Tests JSON Schema 2020-12 keyword preservation (published verbatim) */
  // What the scenario checks ($schema, $anchor, if/then/else, a required-anyOf) no TypeScript type says: the
  // schema is written, and wins over the plugin, which gives the description only.
  @Tool({ name: 'json_schema_2020_12_tool', inputSchema: JSON_SCHEMA_2020_12 })
  jsonSchema202012(): ContentBlock {
    return Content.text('ok');
  }

  @Tool({
    name: 'test_x_mcp_header',
    description: 'Tests SEP-2243 custom headers: "region" is mirrored in the Mcp-Param-Region header',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, level: { type: 'integer' } },
    },
  })
  xMcpHeader(@Args() { region, level }: RegionArgs): ContentBlock {
    return Content.text(`region=${region ?? '(none)'} level=${level ?? '(none)'}`);
  }
}
