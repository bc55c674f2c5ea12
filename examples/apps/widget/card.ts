import { App } from '@modelcontextprotocol/ext-apps';

/** The weather card: renders a show_weather result, and refreshes it through the host with get_weather. */
interface WeatherReport {
  city: string;
  temperatureC: number;
}

const cityEl = document.querySelector<HTMLElement>('#city')!;
const tempEl = document.querySelector<HTMLElement>('#temp')!;
const statusEl = document.querySelector<HTMLElement>('#status')!;
const refreshEl = document.querySelector<HTMLButtonElement>('#refresh')!;

const app = new App({ name: 'weather-card', version: '1.0.0' });
let city: string | undefined;

function show(report: unknown): boolean {
  const weather = report as Partial<WeatherReport> | undefined;
  if (typeof weather?.city !== 'string' || typeof weather.temperatureC !== 'number') return false;
  city = weather.city;
  cityEl.textContent = weather.city;
  tempEl.textContent = String(weather.temperatureC);
  refreshEl.disabled = false;
  return true;
}

app.ontoolresult = (result) => {
  statusEl.textContent = show(result.structuredContent) ? 'ready' : 'no weather in the result';
};

refreshEl.addEventListener('click', async () => {
  if (city === undefined) return;
  refreshEl.disabled = true;
  statusEl.textContent = 'refreshing';
  try {
    // Through the host, which calls the server with the user's own connection (auth, scopes).
    const result = await app.callServerTool({ name: 'get_weather', arguments: { city } });
    statusEl.textContent = !result.isError && show(result.structuredContent) ? 'refreshed' : 'refresh failed';
  } catch {
    statusEl.textContent = 'refresh failed';
  } finally {
    refreshEl.disabled = false;
  }
});

void app.connect();
