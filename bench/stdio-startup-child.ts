import 'reflect-metadata';

/**
 * One stdio server for the start-up measurement, chosen by argv[2]; the parent times process start to the first
 * answer on stdout. Each imports only what it needs, so module loading is part of what is measured:
 * - `mcp`: the basic example's module through `bootstrapStdio` (Nest application context + McpModule);
 * - `bare`: `NestFactory.createApplicationContext` of the same providers without McpModule, answering the first
 *   stdin line with a hand-written JSON-RPC result (the floor a Nest stdio server cannot go under);
 * - `sdk`: the official SDK v2 `serveStdio` with one tool, no Nest.
 */
const kind = process.argv[2];

if (kind === 'mcp') {
  const { bootstrapStdio } = await import('../src/index.js');
  const { AppModule } = await import('../examples/basic/app.module.js');
  // As examples/basic/stdio.ts: the example serves one of its REST routes as a tool, which needs an HTTP adapter.
  await bootstrapStdio(AppModule, { logger: false, http: true });
} else if (kind === 'bare') {
  const { Module } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  const { WeatherService } = await import('../examples/basic/weather.service.js');
  @Module({ providers: [WeatherService] })
  class BareModule {}
  await NestFactory.createApplicationContext(BareModule, { logger: false });
  process.stdin.once('data', (chunk: Buffer) => {
    const { id } = JSON.parse(chunk.toString('utf8').split('\n')[0]) as { id: number };
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n`);
    process.exit(0);
  });
} else if (kind === 'sdk') {
  const { McpServer } = await import('@modelcontextprotocol/server');
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(() => {
    const server = new McpServer({ name: 'weather', version: '1.0.0' });
    server.registerTool('get_weather', { description: 'Current weather for a city' }, async () => ({
      content: [{ type: 'text', text: 'sunny' }],
    }));
    return server;
  });
} else {
  throw new Error(`unknown stdio server kind ${kind}`);
}
