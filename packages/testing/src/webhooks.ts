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
   * The first event that matches and that no earlier `next` returned, waiting for it if it has
   * not arrived. Rejects after the timeout, naming what did arrive.
   */
  next<Type extends WebhookEvent["type"]>(type: Type, options?: NextOptions): Promise<Extract<WebhookEvent, { type: Type }>>;
  next(match?: EventMatch, options?: NextOptions): Promise<WebhookEvent>;
  /** Pass each delivery on, as it came (body and signature), to `url`; `null` stops. fanout gets the bot's status. */
  forward(url: string | null): void;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export async function startWebhooks(secret: string): Promise<WebhookReceiver & LocalServer> {
  const received: WebhookEvent[] = [];
  const handedOut = new Set<WebhookEvent>();
  const waiters = new Set<() => void>();
  let rejected = 0;
  let forwardTo: string | null = null;

  const server = await listen(async (req, res) => {
    const body = await readBody(req);
    const headers = headersOf(req);
    const event = await readWebhook(secret, headers, body);
    if (!event) {
      rejected++;
      return json(res, 401, { error: "bad signature" });
    }
    if (forwardTo) {
      const answer = await fetch(forwardTo, { method: "POST", headers, body }).catch(() => undefined);
      if (!answer?.ok) return json(res, answer?.status ?? 502, { error: `the bot at ${forwardTo} answered ${answer?.status ?? "nothing"}` });
    }
    if (!received.some((e) => e.id === event.id)) {
      received.push(event);
      for (const wake of [...waiters]) wake();
    }
    res.writeHead(204).end();
  });

  const matches = (match: EventMatch | undefined, event: WebhookEvent) => match === undefined || (typeof match === "string" ? event.type === match : match(event));
  const firstUnseen = (match: EventMatch | undefined) => received.find((e) => !handedOut.has(e) && matches(match, e));

  return {
    ...server,
    secret,
    received,
    get rejected() {
      return rejected;
    },
    forward(url) {
      forwardTo = url;
    },
    next(match?: EventMatch, { timeoutMs = DEFAULT_TIMEOUT_MS }: NextOptions = {}) {
      return new Promise<WebhookEvent>((resolve, reject) => {
        const check = () => {
          const event = firstUnseen(match);
          if (!event) return false;
          handedOut.add(event);
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(event);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          const seen = received.map((e) => e.type).join(", ") || "none";
          const what = match === undefined ? "event" : typeof match === "string" ? `'${match}' event` : "matching event";
          reject(new Error(`No ${what} arrived within ${timeoutMs} ms. Received so far: ${seen}. Is it filtered out by webhook.events?`));
        }, timeoutMs);
        waiters.add(wake);
        check();
      });
    },
  };
}
