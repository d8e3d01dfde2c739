// @ts-check
/**
 * The demo tool of `npm run bot`: a tenant HTTP tool (docs/api.md "Tenant HTTP
 * tools") that answers a made-up forecast after a second, so two calls run at
 * once by fanout take about one second in all, not two. It checks fanout's
 * Standard Webhooks signature with the tool's secret, as a real tool should.
 *
 *   POST /tools/weather         {"tool_args":{"city"}, "job_id", …} → {"result":"<city>: <forecast>"}
 *   GET  /__tools/weather/calls → [{city, job_id, started_at, ended_at}]
 */
import { Webhook } from "standardwebhooks";

/** How long one forecast takes: long enough that calls run one after another would show. */
export const FORECAST_MS = 1000;

/** The tool as it goes into fanout's config (`tools[]`), at `url`, signed with `secret`. */
export const weatherTool = (/** @type {string} */ url, /** @type {string} */ secret) => ({
  name: "weather",
  description: "Today's weather in a city (a made-up forecast from the local demo tool).",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "The city's name, e.g. Oslo" } },
    required: ["city"],
  },
  url,
  read_only: true,
  timeout_seconds: 30,
  secret,
});

const SKIES = ["sunny", "light rain", "overcast", "snow showers", "windy", "fog"];

/** The same made-up forecast for a city every time. @param {string} city */
export function forecast(city) {
  let hash = 0;
  for (const c of city.toLowerCase()) hash = (hash * 31 + (c.codePointAt(0) ?? 0)) >>> 0;
  return `${city}: ${(hash % 30) - 5} °C, ${SKIES[hash % SKIES.length]}`;
}

/**
 * @typedef {{ city: string, job_id: string, started_at: number, ended_at?: number }} WeatherCall
 * @typedef {import("node:http").ServerResponse} ServerResponse
 */

/** @param {ServerResponse} res @param {number} status @param {unknown} value */
const json = (res, status, value) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

/**
 * @param {{ secret?: string }} [options] the tool's secret (`whsec_…`); without one, signatures are not checked
 * @returns {(url: URL, req: import("node:http").IncomingMessage, res: ServerResponse, body: string) => boolean}
 */
export function fakeWeather({ secret } = {}) {
  /** @type {WeatherCall[]} */
  const calls = [];
  const verifier = secret ? new Webhook(secret) : undefined;
  return function handle(url, req, res, body) {
    if (url.pathname === "/__tools/weather/calls") {
      json(res, 200, calls);
      return true;
    }
    if (url.pathname !== "/tools/weather") return false;
    if (verifier) {
      try {
        verifier.verify(body, /** @type {Record<string, string>} */ (req.headers));
      } catch {
        json(res, 401, { error: "bad signature: configure this tool with the secret the demo tool was started with" });
        return true;
      }
    }
    /** @type {{ tool_args?: { city?: unknown }, job_id?: unknown }} */
    let call = {};
    try {
      call = JSON.parse(body);
    } catch {
      /* answered below */
    }
    const city = call.tool_args?.city;
    if (typeof city !== "string" || !city.trim()) {
      json(res, 200, { error: 'weather needs a city, e.g. {"city":"Oslo"}' });
      return true;
    }
    /** @type {WeatherCall} */
    const record = { city, job_id: String(call.job_id ?? ""), started_at: Date.now() };
    calls.push(record);
    setTimeout(() => {
      record.ended_at = Date.now();
      json(res, 200, { result: forecast(city.trim()) });
    }, FORECAST_MS);
    return true;
  };
}
