/**
 * The bot's fanout client: over the `FANOUT` service binding when the two
 * Workers share an account (Cloudflare refuses a public fetch between Workers
 * of one account on workers.dev), over `FANOUT_URL` otherwise.
 */
import { Fanout } from "@fanout/client";

/** What the bot's Env holds for reaching fanout (src/env.ts). */
export interface FanoutSettings {
  FANOUT?: { fetch(request: Request): Promise<Response> };
  FANOUT_URL?: string;
  FANOUT_API_KEY: string;
}

/** Any URL will do over a binding: the request goes to fanout whatever its host. */
const BOUND_URL = "https://fanout.binding";

/** `FANOUT_URL` wins when it is set (a fanout elsewhere, a local run); otherwise the binding. */
export function fanoutClient(env: FanoutSettings): Fanout {
  if (env.FANOUT_URL) return new Fanout({ url: env.FANOUT_URL, apiKey: env.FANOUT_API_KEY });
  const binding = env.FANOUT;
  if (!binding)
    throw new Error("fanout is not reachable: bind it as the FANOUT service in wrangler.toml, or set FANOUT_URL");
  return new Fanout({ url: BOUND_URL, apiKey: env.FANOUT_API_KEY, fetch: (request) => binding.fetch(request) });
}
