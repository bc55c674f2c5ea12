import { Controller, Get, Injectable, type INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { McpModule, Tool } from '../../src/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

@Controller('orders')
class OrdersController {
  @Get()
  list(): string[] {
    return [];
  }
}

@Injectable()
class Tools {
  @Tool({ description: 'Says hello' })
  hello(): string {
    return 'hello';
  }
}

const SECRET = 'a-secret-of-at-least-thirty-two-bytes!!';

describe.each(HTTP_ADAPTERS)('the app’s OpenAPI document (%s)', (adapter) => {
  let app: INestApplication;
  afterEach(() => app?.close());

  it('lists the app’s own routes and none of the MCP endpoint’s, nor the metadata routes', async () => {
    app = await createApp(
      [
        McpModule.forRoot({
          name: 'doc',
          version: '1.0.0',
          auth: { resource: 'https://api.example.com/mcp', jwt: { secret: SECRET, typ: 'JWT' } },
        }),
        McpModule.forRoot({ name: 'second', version: '1.0.0', path: '/tools/mcp', isDefault: false }),
      ],
      [Tools],
      adapter,
      [OrdersController],
    );
    const document = SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('api').build());
    const paths = Object.keys(document.paths);
    expect(paths).toContain('/orders');
    expect(paths.filter((path) => path.includes('mcp') || path.includes('.well-known'))).toEqual([]);
  });
});
