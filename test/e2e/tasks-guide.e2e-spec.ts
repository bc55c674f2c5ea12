import 'reflect-metadata';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Args, McpCtx, McpModule, Tool, type McpContext } from '../../src/index.js';
import { closeListening, listenOnLoopback } from '../support/sse-client.js';

// The tool and the client below are docs/tasks.md's, verbatim but for the in-memory ReportService; keep them in step.
@Injectable()
class ReportService {
  readonly asked: string[] = [];
  async regions(): Promise<string[]> {
    return ['north', 'south'];
  }
  async total(region: string, month: string, signal: AbortSignal): Promise<number> {
    // A database's round trip: the call outlasts the immediate-result window and becomes a task.
    await sleep(5, undefined, { signal });
    this.asked.push(`${region}/${month}`);
    return region === 'north' ? 120 : 80;
  }
}

@Injectable()
export class ReportTools {
  constructor(private readonly reports: ReportService) {}

  @Tool({
    description: 'Builds the monthly sales report, one region at a time',
    inputSchema: { type: 'object', properties: { month: { type: 'string' } }, required: ['month'] },
    taskSupport: 'optional',
  })
  async build_report(@Args('month') month: string, @McpCtx() ctx: McpContext) {
    const regions = await this.reports.regions();
    const totals: Record<string, number> = {};
    for (const [done, region] of regions.entries()) {
      totals[region] = await this.reports.total(region, month, ctx.signal);
      ctx.reportProgress({ progress: done + 1, total: regions.length, message: `${region} done` });
    }
    return `Sales for ${month}: ${JSON.stringify(totals)}`;
  }
}

const TASKS = 'io.modelcontextprotocol/tasks';

async function rpc(url: string, method: string, params: Record<string, unknown>, name: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': name, // the tool for tools/call, the task id for tasks/*
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  const body = (await response.json()) as { result?: any; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${body.error.code} ${body.error.message}`);
  return body.result;
}

/** Calls a tool; when the server answers with a task, polls it until it ends. */
export async function callAsTask(url: string, name: string, args: Record<string, unknown>) {
  let task = await rpc(url, 'tools/call', { name, arguments: args }, name);
  if (task.resultType !== 'task') return task; // answered in the request
  while (task.status === 'working' || task.status === 'input_required') {
    await new Promise((resolve) => setTimeout(resolve, task.pollIntervalMs ?? 1000));
    task = await rpc(url, 'tasks/get', { taskId: task.taskId }, task.taskId);
  }
  return task; // completed (task.result), failed (task.error) or cancelled
}

@Module({
  imports: [McpModule.forRoot({ name: 'reports', version: '1.0.0', tasks: { pollIntervalMs: 100 } })],
  providers: [ReportService, ReportTools],
})
class AppModule {}

describe('docs/tasks.md: a Nest provider method run as a task, polled over HTTP', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({ logger: false });
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  it('answers with a task, which the polling client follows to its result', async () => {
    const task = await callAsTask(url, 'build_report', { month: '2026-10' });
    expect(task).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      statusMessage: 'south done',
      result: { content: [{ type: 'text', text: 'Sales for 2026-10: {"north":120,"south":80}' }] },
    });
    expect(app.get(ReportService).asked).toEqual(['north/2026-10', 'south/2026-10']);
  });

  it('is not followed by the official client 2.4.0 yet, which rejects the task answer (hence fetch)', async () => {
    const client = new Client(
      { name: 'tasks-guide', version: '1.0.0' },
      { capabilities: { extensions: { [TASKS]: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await expect(client.callTool({ name: 'build_report', arguments: { month: '2026-11' } })).rejects.toThrow(
        "Unsupported result type 'task'",
      );
    } finally {
      await client.close();
    }
  });
});
