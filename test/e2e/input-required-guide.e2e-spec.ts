import 'reflect-metadata';
import { Injectable, type INestApplication, type OnModuleInit } from '@nestjs/common';
import { MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

@Injectable()
class FileService {
  readonly deleted: string[] = [];
  async delete(path: string): Promise<void> {
    this.deleted.push(path);
  }
}

// The guide's example (docs/input-required.md), as written there.
@Injectable()
export class FileTools implements OnModuleInit {
  constructor(
    private readonly mcp: MCPServer,
    private readonly files: FileService,
  ) {}

  onModuleInit() {
    const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    this.mcp.registerTool(
      'delete_file',
      'Deletes a file once the user confirms',
      schema,
      async ({ path }, _answers, ctx) => {
        const answer = await ctx.elicit(`Delete ${path}? This cannot be undone.`, {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        });
        if (answer.action !== 'accept' || answer.content?.confirm !== true) return 'Nothing was deleted.';
        await this.files.delete(path);
        return `Deleted ${path}`;
      },
    );
  }
}

describe('the confirm-before-delete guide', () => {
  let app: INestApplication;
  const caps = { clientCapabilities: { elicitation: {} } };

  beforeAll(async () => {
    app = await createApp(
      [
        McpModule.forRoot({
          name: 'files',
          version: '1.0.0',
          requestState: { secret: 'guide-secret-0123456789abcdef-0123456789' },
        }),
      ],
      [FileService, FileTools],
    );
  });
  afterAll(() => app.close());

  it('asks first, deletes only after an accepted confirmation', async () => {
    const files = app.get(FileService);
    const r1 = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'delete_file', arguments: { path: '/data/report.pdf' } }, caps),
    );
    expect(r1.status).toBe(200);
    expect(r1.body.result.inputRequests.elicit_0.params.message).toBe(
      'Delete /data/report.pdf? This cannot be undone.',
    );
    expect(files.deleted).toEqual([]);

    const no = { elicit_0: { action: 'accept', content: { confirm: false } } };
    const r2 = await createMcpTestClient(app).post(
      mcpMessage(
        'tools/call',
        {
          name: 'delete_file',
          arguments: { path: '/data/report.pdf' },
          inputResponses: no,
          requestState: r1.body.result.requestState,
        },
        caps,
      ),
    );
    expect(r2.body.result.content).toEqual([{ type: 'text', text: 'Nothing was deleted.' }]);
    expect(files.deleted).toEqual([]);

    const yes = { elicit_0: { action: 'accept', content: { confirm: true } } };
    const r3 = await createMcpTestClient(app).post(
      mcpMessage(
        'tools/call',
        {
          name: 'delete_file',
          arguments: { path: '/data/report.pdf' },
          inputResponses: yes,
          requestState: r1.body.result.requestState,
        },
        caps,
      ),
    );
    expect(r3.body.result.content).toEqual([{ type: 'text', text: 'Deleted /data/report.pdf' }]);
    expect(files.deleted).toEqual(['/data/report.pdf']);
  });

  it('answers -32021 to a client that cannot elicit, and deletes nothing', async () => {
    const res = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'delete_file', arguments: { path: '/data/x' } }, { clientCapabilities: {} }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    expect(app.get(FileService).deleted).not.toContain('/data/x');
  });
});
