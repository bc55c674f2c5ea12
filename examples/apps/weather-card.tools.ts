import { Injectable, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import { z } from 'zod';
import type { CallToolResult } from '../../src/index.js';
import { MCPServer, Tool, type McpContext } from '../../src/index.js';
import { weatherFor, type WeatherReport } from './weather-report.js';

export const CARD_URI = 'ui://weather/card.html';
/** Where `npm run build:widgets` writes the card: one HTML file with its script inlined. */
export const CARD_FILE = join(process.cwd(), 'build', 'widgets', 'card.html');

const city = z.object({ city: z.string().min(1).max(100).describe('City name, e.g. "Lisbon"') });
const report = z.object({ city: z.string(), temperatureC: z.number() });

/**
 * A tool with a UI (MCP Apps): `show_weather` names the card, which a host renders with the result; the card's
 * Refresh button calls `get_weather` through the host. Clients without UIs read the text of the same result.
 */
@Injectable()
export class WeatherCardTools implements OnModuleInit {
  constructor(private readonly mcp: MCPServer) {}

  /** The built card is a file: read once here, served from memory on every `resources/read`. */
  onModuleInit(): void {
    this.mcp.addUiResource({
      uri: CARD_URI,
      name: 'weather-card',
      title: 'Weather card',
      description: 'Shows the temperature of a city, with a Refresh button',
      file: CARD_FILE,
      // Everything is inlined and the card talks only to its host: it declares no origins at all.
      csp: { connectDomains: [], resourceDomains: [] },
      prefersBorder: true,
    });
  }

  @Tool({
    name: 'show_weather',
    description: 'Shows the current temperature in a city on a weather card',
    inputSchema: city,
    outputSchema: report,
    ui: { resourceUri: CARD_URI },
  })
  showWeather({ city }: { city: string }, _input: unknown, ctx: McpContext): CallToolResult {
    const weather = weatherFor(city);
    const text = `${weather.city}: ${weather.temperatureC} °C`;
    // The text is the whole answer for a client without UIs; one that renders the card only needs a caption.
    return {
      content: [{ type: 'text', text: ctx.supportsUi() ? `${text} (on the weather card)` : text }],
      structuredContent: { ...weather },
    };
  }

  @Tool({
    name: 'get_weather',
    description: 'The current temperature in a city',
    inputSchema: city,
    outputSchema: report,
    annotations: { readOnlyHint: true },
  })
  getWeather({ city }: { city: string }): WeatherReport {
    return weatherFor(city);
  }
}
