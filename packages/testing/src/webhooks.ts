/**
 * A webhook receiver wired as the tenant's `webhook.url`: it verifies each
 * delivery's Standard Webhooks signature (401 when it fails, which fanout does
 * not retry), keeps each event once however often it is delivered, and can
 * pass every delivery on to the bot under test, answering with the bot's status.
 */
import { readWebhook, type WebhookEvent } from "@fanout/client";
import { headersOf, json, listen, readBody, type LocalServer } from "./http.js";

/** An event type, or a test of the whole event. */
export type EventMatch = string | ((event: WebhookEvent) => boolean);

export interface NextOptions {
  /** Default 10 000. */
  timeoutMs?: number;
}

export interface WebhookReceiver {
  url: string;
  /** The `whsec_…` secret fanout signs with: what the bot verifies with. */
  secret: string;
  /** Every event, once each, in arrival order (receivers order by `data.seq`; arrival may differ). */
  readonly received: WebhookEvent[];
  /** Deliveries refused for a bad signature. */
  readonly rejected: number;
  /**
   * The first event that matches and that no earlier `next` returned (the oldest such, whichever chat
   * it is of: match on `data.chat_id` with a function to wait for one chat's), waiting for it if it has
   * not arrived. Rejects after the timeout, naming what did arrive and the likely cause (the bot
   * refusing deliveries, a type left out of `webhook.events`, events an earlier `next` took); rejects
   * at once if a test function throws.
   */
  next<Type extends WebhookEvent["type"]>(
    type: Type,
    options?: NextOptions,
  ): Promise<Extract<WebhookEvent, { type: Type }>>;
  next(match?: EventMatch, options?: NextOptions): Promise<WebhookEvent>;
  /**
   * Pass each delivery on to `url` as it came (its body, content type and signature); `null` stops.
   * fanout gets the bot's status, so a refusal is retried as in production; the event counts as
   * received once the bot took it.
   */
  forward(url: string | null): void;
  /** Forgets what was received, refused and handed out, for tests that share one fanout. */
  reset(): void;
}

const DEFAULT_TIMEOUT_MS = 10_000;

interface Waiter {
  /** True when it took an event (or gave up); false to keep waiting. */
  check(): boolean;
  fail(error: Error): void;
}

/**
 * `subscribed`: the tenant's `webhook.events` now (undefined: every type), read when a `next` times out
 * to tell a filtered type from one that never happened.
 */
export async function startWebhooks(
  secret: string,
  subscribed: () => Promise<readonly string[] | undefined> = async () => undefined,
): Promise<WebhookReceiver & LocalServer> {
  const received: WebhookEvent[] = [];
  const handedOut = new Set<WebhookEvent>();
  const waiters = new Set<Waiter>();
  let rejected = 0;
  let forwardTo: string | null = null;
  /** The last answers the bot gave that were not 2xx, to say why an event never arrived. */
  const refusedByBot: string[] = [];

  const server = await listen(async (req, res) => {
    const body = await readBody(req);
    const headers = headersOf(req);
    const event = await readWebhook(secret, headers, body);
    if (!event) {
      rejected++;
      return json(res, 401, { error: "bad signature" });
    }
    if (forwardTo) {
      const answer = await fetch(forwardTo, { method: "POST", headers: forwardedHeaders(headers), body }).catch(
        (e: Error) => e,
      );
      if (answer instanceof Error || !answer.ok) {
        const what = answer instanceof Error ? answer.message : `HTTP ${answer.status}`;
        refusedByBot.push(`${event.type} ${event.id}: ${what}`);
        if (refusedByBot.length > 5) refusedByBot.shift();
        return json(res, answer instanceof Error ? 502 : answer.status, {
          error: `the bot at ${forwardTo} answered ${what}`,
        });
      }
    }
    if (!received.some((e) => e.id === event.id)) {
      received.push(event);
      for (const waiter of [...waiters]) waiter.check();
    }
    res.writeHead(204).end();
  });

  const matches = (match: EventMatch | undefined, event: WebhookEvent) =>
    match === undefined || (typeof match === "string" ? event.type === match : match(event));

  const next = (match?: EventMatch, { timeoutMs = DEFAULT_TIMEOUT_MS }: NextOptions = {}) =>
    new Promise<WebhookEvent>((resolve, reject) => {
      const settle = () => {
        waiters.delete(waiter);
        clearTimeout(timer);
      };
      const waiter: Waiter = {
        check() {
          let event: WebhookEvent | undefined;
          try {
            event = received.find((e) => !handedOut.has(e) && matches(match, e));
          } catch (error) {
            settle();
            reject(error);
            return true;
          }
          if (!event) return false;
          handedOut.add(event);
          settle();
          resolve(event);
          return true;
        },
        fail(error) {
          settle();
          reject(error);
        },
      };
      const timer = setTimeout(async () => {
        const seen = received.map((e) => e.type).join(", ") || "none";
        const what = match === undefined ? "event" : typeof match === "string" ? `'${match}' event` : "matching event";
        const causes = await likelyCauses(match, { received, handedOut, rejected, refusedByBot }, subscribed);
        waiter.fail(new Error(`No ${what} arrived within ${timeoutMs} ms. Received so far: ${seen}.${causes}`));
      }, timeoutMs);
      timer.unref(); // a test that forgot a next() still ends
      if (!waiter.check()) waiters.add(waiter);
    });

  return {
    ...server,
    close: async () => {
      for (const waiter of [...waiters]) waiter.fail(new Error("The fanout was stopped before the event arrived."));
      await server.close();
    },
    secret,
    received,
    get rejected() {
      return rejected;
    },
    forward(url) {
      forwardTo = url;
    },
    reset() {
      received.length = 0;
      handedOut.clear();
      refusedByBot.length = 0;
      rejected = 0;
    },
    next: next as WebhookReceiver["next"],
  };
}

/** What the bot needs of a delivery: its content type and its signature, not this hop's connection headers. */
function forwardedHeaders(headers: Headers): Headers {
  const out = new Headers();
  for (const [name, value] of headers) if (name === "content-type" || name.startsWith("webhook-")) out.set(name, value);
  return out;
}

/** What the receiver saw, to say why an awaited event never came. */
interface Seen {
  received: WebhookEvent[];
  handedOut: Set<WebhookEvent>;
  rejected: number;
  refusedByBot: string[];
}

/** The likely causes of a `next` that timed out, each said with what to do, as one sentence each. */
export async function likelyCauses(
  match: EventMatch | undefined,
  seen: Seen,
  subscribed: () => Promise<readonly string[] | undefined>,
): Promise<string> {
  const causes: string[] = [];
  if (seen.refusedByBot.some((r) => r.endsWith("HTTP 401")))
    causes.push(
      "The bot answered 401: it verifies with another secret than fanout.webhooks.secret; give it that one as its webhook secret",
    );
  if (seen.refusedByBot.length) causes.push(`The bot refused: ${seen.refusedByBot.join("; ")}`);
  if (seen.rejected)
    causes.push(`${seen.rejected} deliveries had a bad signature (not signed with fanout.webhooks.secret)`);
  if (typeof match === "string") {
    const globs = await subscribed().catch(() => undefined);
    if (globs && !globs.some((glob) => globMatches(glob, match)))
      causes.push(`'${match}' is not in webhook.events (${globs.join(", ")}): add it to the config's webhook.events`);
    const taken = seen.received.filter((e) => e.type === match && seen.handedOut.has(e)).length;
    if (taken) causes.push(`${taken} '${match}' event(s) arrived and an earlier next() took each of them`);
  }
  return causes.length ? ` ${causes.join(". ")}.` : "";
}

/** `webhook.events` globs: `*` stands for any run of characters. */
const globMatches = (glob: string, type: string) =>
  new RegExp(
    `^${glob
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  ).test(type);
