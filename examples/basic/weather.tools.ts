import { Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Args, McpContext, McpCtx, Tool } from '../../src/index.js';
import { FORECAST_GIVEN } from './weather.events.js';
import { WeatherService, type Forecast } from './weather.service.js';

/** The example's tools, declared on a provider: the explorer registers them with `MCPServer` at start-up. */
@Injectable()
export class WeatherTools {
  constructor(
    private readonly weather: WeatherService,
    // Optional: a module that reuses these tools without EventEmitterModule simply announces nothing.
    @Optional() private readonly events?: EventEmitter2,
  ) {}

  @Tool({
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 } },
      required: ['city'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  })
  getWeather(@Args('city') city: string): Forecast {
    const forecast = this.weather.forecast(city);
    // An app event like any other: WeatherEvents turns it into a `weather.checked` occurrence.
    this.events?.emit(FORECAST_GIVEN, forecast);
    return forecast;
  }

  /**
   * Adds two numbers
   * @param a - the first addend
   * @param b - the second addend
   */
  // No schema written: nestjs-mcp/plugin derives it from the types and this comment (plugin-metadata.ts).
  @Tool()
  add(@Args('a') a: number, @Args('b') b: number): number {
    return a + b;
  }

  @Tool({
    name: 'countdown',
    description: 'Counts down from n, reporting progress on the way',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['n'] },
  })
  async countdown(@Args('n') n: number, @McpCtx() ctx: McpContext): Promise<string> {
    for (let i = 1; i <= n; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ctx.reportProgress({ progress: i, total: n, message: `${n - i} to go` });
    }
    return 'Lift-off!';
  }
}
