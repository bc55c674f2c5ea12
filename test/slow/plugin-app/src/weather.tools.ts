import { Injectable } from '@nestjs/common';
import { Args, Tool } from 'nestjs-mcp';

export interface Place {
  /** The city to look up */
  city: string;
  /** How many days ahead, from today */
  days?: number;
  /** Where the days start */
  from?: Date;
}

export interface Forecast {
  city: string;
  temperature: number;
  conditions: 'sunny' | 'windy' | 'rainy';
}

@Injectable()
export class WeatherTools {
  /**
   * The forecast for a city.
   * @param units - the temperature scale
   */
  @Tool()
  forecast(@Args() place: Place, @Args('units') units: 'C' | 'F' = 'C'): Forecast {
    const celsius = 13 + (place.days ?? 0);
    const temperature = units === 'C' ? celsius : Math.round(celsius * 1.8 + 32);
    return { city: place.city, temperature, conditions: 'windy' };
  }

  /** Adds two numbers. */
  @Tool()
  add(@Args('a') a: number, @Args('b') b: number): number {
    return a + b;
  }
}
