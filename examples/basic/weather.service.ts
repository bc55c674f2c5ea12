import { Injectable } from '@nestjs/common';

export interface Forecast {
  city: string;
  temperatureC: number;
  conditions: string;
}

/** A stand-in for a real backend service: deterministic, so the README's curl lines show stable output. */
@Injectable()
export class WeatherService {
  private readonly conditions = ['sunny', 'cloudy', 'rainy', 'windy', 'snowy'];

  forecast(city: string): Forecast {
    const seed = [...city.toLowerCase()].reduce((sum, ch) => sum + ch.charCodeAt(0), 0);
    return { city, temperatureC: (seed % 35) - 5, conditions: this.conditions[seed % this.conditions.length] };
  }
}
