import { Injectable } from '@nestjs/common';
import { Args, Tool } from 'nestjs-mcp';

export type Scale = 'celsius' | 'fahrenheit';

export interface Temperature {
  /** The converted temperature */
  value: number;
  scale: Scale;
}

// No schema written: nestjs-mcp/plugin (nest-cli.json, and the test runner's config) derives it from the types
// and the JSDoc below.
@Injectable()
export class ConvertTools {
  /**
   * Converts a temperature to another scale.
   * @param value - the temperature to convert
   * @param to - the scale to convert it to
   */
  @Tool()
  convert(@Args('value') value: number, @Args('to') to: Scale = 'fahrenheit'): Temperature {
    return { value: to === 'fahrenheit' ? value * 1.8 + 32 : (value - 32) / 1.8, scale: to };
  }
}
