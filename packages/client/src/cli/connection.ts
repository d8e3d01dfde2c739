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

/** How long the identity check waits for `/healthz`. */
const CHECK_MS = 5_000;

/**
 * Whether what answers at `url` is fanout (its `/healthz` names it): undefined when it is, else what
 * to tell the person. Without it, another service on the port would answer the CLI's calls with its
 * own refusals (`unauthorized`), which read as fanout's.
 */
export async function notFanout(url: string, local: boolean): Promise<string | undefined> {
  const where = local ? "start it with `npm start` in the fanout checkout, or set FANOUT_URL" : "check FANOUT_URL";
  let answer: Response;
  try {
    answer = await fetch(new URL("healthz", url.endsWith("/") ? url : `${url}/`), {
      signal: AbortSignal.timeout(CHECK_MS),
    });
  } catch (e) {
    return `nothing answers at ${url} (${(e as Error).message}): ${where}`;
  }
  const body = (await answer.json().catch(() => undefined)) as { status?: unknown; service?: unknown } | undefined;
  // fanout names itself; one deployed before it did answers `{"status":"ok"}` alone.
  const named = body?.service === "fanout" || (body?.status === "ok" && body.service === undefined);
  if (answer.ok && named) return undefined;
  const said = answer.ok ? "not naming fanout" : `HTTP ${answer.status}`;
  const fix = local
    ? "stop it, or start fanout on another port (PORT=8788 npm start) and set FANOUT_URL to it"
    : "point FANOUT_URL at fanout";
  return `what answers at ${url} is not fanout (GET /healthz: ${said}): another service holds that address; ${fix}`;
}
