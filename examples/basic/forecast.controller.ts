import { Controller, Get, Param } from '@nestjs/common';
import { RouteTool } from '../../src/index.js';
import { WeatherService, type Forecast } from './weather.service.js';

/** An ordinary REST route of the backend, served to MCP clients as a tool as well. */
@Controller('forecasts')
export class ForecastController {
  constructor(private readonly weather: WeatherService) {}

  @Get(':city')
  @RouteTool({ name: 'get_forecast', description: 'The forecast for a city, from the REST API' })
  findOne(@Param('city') city: string): Forecast {
    return this.weather.forecast(city);
  }
}
