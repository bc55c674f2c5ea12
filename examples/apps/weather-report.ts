/** What both weather tools answer: the city as asked and a temperature that is the same for a city every time. */
export interface WeatherReport {
  city: string;
  temperatureC: number;
}

/** A made-up but stable temperature (-5..29 °C) from the city's name, so the example needs no weather service. */
export function weatherFor(city: string): WeatherReport {
  let hash = 0;
  for (const char of city.trim().toLowerCase()) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return { city, temperatureC: (hash % 35) - 5 };
}
