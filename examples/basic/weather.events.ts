import { Injectable } from '@nestjs/common';
import { McpEvent } from '../../src/index.js';
import type { Forecast } from './weather.service.js';

/** The app event `get_weather` emits (through @nestjs/event-emitter) for each forecast it gives. */
export const FORECAST_GIVEN = 'forecast.given';

/**
 * The example's event type (SEP-3415): clients follow `weather.checked` by polling, by a stream, or through a
 * webhook, instead of calling `get_weather` in a loop. The occurrence carries the city and what was found,
 * never more: a client that needs the whole forecast calls the tool.
 */
@Injectable()
export class WeatherEvents {
  @McpEvent({
    name: 'weather.checked',
    description: 'Someone checked the weather of a city',
    on: FORECAST_GIVEN,
    delivery: ['poll', 'push', 'webhook'],
    payloadSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, conditions: { type: 'string' } },
      required: ['city', 'conditions'],
    },
    retention: { maxCount: 100 },
  })
  checked(forecast: Forecast) {
    return { city: forecast.city, conditions: forecast.conditions };
  }
}
