import { Injectable, type OnModuleInit } from '@nestjs/common';
import { MCPServer } from '../../src/index.js';
import { WeatherService } from './weather.service.js';

/** Registers the example's tools with `MCPServer.registerTool`, the run-time registration API. */
@Injectable()
export class WeatherTools implements OnModuleInit {
  constructor(
    private readonly server: MCPServer,
    private readonly weather: WeatherService,
  ) {}

  onModuleInit(): void {
    this.server.registerTool(
      'get_weather',
      'Current weather for a city',
      { type: 'object', properties: { city: { type: 'string', minLength: 1 } }, required: ['city'], additionalProperties: false },
      (args: { city: string }) => this.weather.forecast(args.city),
    );
    this.server.registerTool(
      'add',
      'Adds two numbers',
      { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      (args: { a: number; b: number }) => args.a + args.b,
    );
    this.server.registerTool(
      'countdown',
      'Counts down from n, reporting progress on the way',
      { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['n'] },
      async (args: { n: number }, _inputs, ctx) => {
        for (let i = 1; i <= args.n; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          ctx.reportProgress({ progress: i, total: args.n, message: `${args.n - i} to go` });
        }
        return 'Lift-off!';
      },
    );
  }
}
