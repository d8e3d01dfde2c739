/**
 * Which service the CLI talks to: FANOUT_URL with FANOUT_API_KEY, or, when
 * FANOUT_URL is unset, the local one `npm start` runs (its URL and dev key),
 * so trying fanout takes no setup. Using the local one is said in a line of
 * its own, so nobody wonders which service answered.
 */
import { LOCAL_KEY, LOCAL_URL } from "../local.js";

export type Service = { url: string; apiKey: string; note?: string } | { missing: string };

export function serviceFrom(env: Record<string, string | undefined>): Service {
  const url = env.FANOUT_URL;
  if (!url) {
    const ignored = env.FANOUT_API_KEY ? " (FANOUT_API_KEY is used only with FANOUT_URL)" : "";
    return {
      url: LOCAL_URL,
      apiKey: LOCAL_KEY,
      note: `FANOUT_URL is not set: using the local service of \`npm start\` at ${LOCAL_URL} with its dev key${ignored}`,
    };
  }
  if (!env.FANOUT_API_KEY)
    return { missing: `set FANOUT_API_KEY to a key of the service at ${url} (one from its API_KEYS secret)` };
  return { url, apiKey: env.FANOUT_API_KEY };
}
