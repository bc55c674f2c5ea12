import { Injectable } from '@nestjs/common';
import { Args, Prompt, ResourceTemplate } from '../../src/index.js';
import { WeatherService } from './weather.service.js';

/** The example's resources and prompts: what the README's resources/read and prompts/get curl lines ask for. */
@Injectable()
export class WeatherCatalog {
  constructor(private readonly weather: WeatherService) {}

  @ResourceTemplate({ uriTemplate: 'weather://forecast/{city}', name: 'forecast', mimeType: 'application/json' })
  forecast(@Args('city') city: string) {
    return JSON.stringify(this.weather.forecast(city));
  }

  @Prompt({
    name: 'weather_report',
    description: 'Asks for a short weather report',
    arguments: [{ name: 'city', required: true }],
  })
  report(@Args('city') city: string) {
    return `Write a two-line weather report for ${city}.`;
  }
}
