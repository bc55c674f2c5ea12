import { Injectable, ValidationPipe, type INestApplication } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { McpContext, McpCtx, McpModule, Tool } from '../../src/index.js';
import { createMcpTestClient, type McpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

// `McpContext` imported as a value, as apps do: the parameter's design type is then the class itself, which a global
// ValidationPipe would walk (the context holds the HTTP request, which refers back to itself) if it took the
// parameter for a body, query or route param.
@Injectable()
class ContextTools {
  @Tool({ name: 'caller_host', description: 'Reads the request through the context' })
  callerHost(@McpCtx() ctx: McpContext) {
    return { host: (ctx.httpRequest as { headers?: Record<string, string> } | undefined)?.headers?.host ?? null };
  }
}

describe.each(HTTP_ADAPTERS)('a global ValidationPipe and a tool that declares McpContext (%s)', (adapter) => {
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    app = await createApp(
      [McpModule.forRoot({ name: 'ctx', version: '1.0.0' })],
      [ContextTools, { provide: APP_PIPE, useValue: new ValidationPipe({ whitelist: true, transform: true }) }],
      adapter,
    );
    mcp = createMcpTestClient(app);
  });

  afterAll(() => app.close());

  it('hands the tool its context untouched by the pipe', async () => {
    const { result } = await mcp.callTool('caller_host');
    expect(result?.isError).toBeFalsy();
    expect(
      result?.structuredContent ?? JSON.parse(String((result?.content[0] as { text?: string } | undefined)?.text)),
    ).toEqual({
      host: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
    });
  });
});
