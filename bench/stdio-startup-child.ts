import 'reflect-metadata';

/**
 * One stdio server for the start-up measurement, chosen by argv[2]; the parent times process start to the first
 * answer on stdout. Each imports only what it needs, so module loading is part of what is measured:
 * - `mcp`: the basic example's module through `bootstrapStdio`, with the HTTP adapter its route tool needs
 *   (a Nest application, never listening, + McpModule);
 * - `mcp-context`: the example's weather service and a tool on it, served by the package as an app installs it
 *   (`nestjs-mcp`, the built ESM package in dist/), in a Nest application context;
 * - `bare`: `NestFactory.createApplicationContext` of the same providers without McpModule, answering the first
 *   stdin line with a hand-written JSON-RPC result (the floor a Nest stdio server cannot go under);
 * - `bare-http`: `NestFactory.create` + `init` of those providers and the same REST route without McpModule, the
 *   floor of `mcp` (Express and the rest of Nest's HTTP application, loaded for the route tool);
 * - `sdk`: the official SDK v2 `serveStdio` with one tool, no Nest.
 */
const kind = process.argv[2];

if (kind === 'mcp') {
  const { bootstrapStdio } = await import('../src/index.js');
  const { AppModule } = await import('../examples/basic/app.module.js');
  // As examples/basic/stdio.ts: the example serves one of its REST routes as a tool, which needs an HTTP adapter.
  await bootstrapStdio(AppModule, { logger: false, http: true });
} else if (kind === 'mcp-context') {
  const { Inject, Injectable, Module } = await import('@nestjs/common');
  // The package as an app installs it (`npm run build` makes dist/), through its own name: the ESM build.
  const library = 'nestjs-mcp';
  const { Args, bootstrapStdio, McpModule, Tool } = (await import(library)) as typeof import('../src/index.js');
  const { WeatherService } = await import('../examples/basic/weather.service.js');
  @Injectable()
  class WeatherTools {
    constructor(@Inject(WeatherService) private readonly weather: InstanceType<typeof WeatherService>) {}
    @Tool({
      name: 'get_weather',
      description: 'Current weather for a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    })
    getWeather(@Args('city') city: string) {
      return this.weather.forecast(city);
    }
  }
  @Module({
    imports: [McpModule.forRoot({ name: 'weather', version: '1.0.0' })],
    providers: [WeatherService, WeatherTools],
  })
  class ContextModule {}
  await bootstrapStdio(ContextModule, { logger: false });
} else if (kind === 'bare' || kind === 'bare-http') {
  const { Controller, Get, Inject, Module, Param } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  const { WeatherService } = await import('../examples/basic/weather.service.js');
  // The example's REST route without `@RouteTool`, whose import would load the library.
  @Controller('forecasts')
  class ForecastRoutes {
    constructor(@Inject(WeatherService) private readonly weather: InstanceType<typeof WeatherService>) {}
    @Get(':city')
    findOne(@Param('city') city: string) {
      return this.weather.forecast(city);
    }
  }
  @Module({ providers: [WeatherService], controllers: kind === 'bare-http' ? [ForecastRoutes] : [] })
  class BareModule {}
  if (kind === 'bare') await NestFactory.createApplicationContext(BareModule, { logger: false });
  else await (await NestFactory.create(BareModule, { logger: false })).init();
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
