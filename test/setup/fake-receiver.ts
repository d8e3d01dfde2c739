/**
 * A webhook receiver, served by the fake server (see fake-servers.ts; the
 * Telegram Bot API stand-in is scripts/fakes/telegram.mjs). Tests use an inbox
 * name of their own, since test files run concurrently against one server.
 *
 *   POST /hooks/<inbox>              → records the delivery; answers the next scripted status (then 200);
 *                                      a scripted 0 never answers
 *   POST /__hooks/script             {"inbox", "statuses":[500, 200, …]}
 *   GET  /__hooks/received?inbox=…   → [{headers, body, status, at}]
 */
import type { IncomingMessage, ServerResponse } from "node:http";

interface Delivery {
  headers: IncomingMessage["headers"];
  body: string;
  status: number;
  at: number;
}

export function fakeReceiver() {
  const scripts = new Map<string, number[]>();
  const received = new Map<string, Delivery[]>();
  const json = (res: ServerResponse, status: number, value: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

  /** Answers the request when it is one of these routes; false otherwise. */
  return function handle(url: URL, req: IncomingMessage, res: ServerResponse, body: string): boolean {
    const hook = /^\/hooks\/([^/]+)$/.exec(url.pathname);
    if (hook) {
      const inbox = hook[1]!;
      const status = scripts.get(inbox)?.shift() ?? 200;
      received.set(inbox, [...(received.get(inbox) ?? []), { headers: req.headers, body, status, at: Date.now() }]);
      if (status === 0) return true; // hangs: the sender's attempt timeout must end it
      res.writeHead(status, { "content-type": "text/plain" }).end(`status ${status}`);
      return true;
    }
    if (url.pathname === "/__hooks/script") {
      const { inbox, statuses } = JSON.parse(body) as { inbox: string; statuses: number[] };
      scripts.set(inbox, [...statuses]);
      received.set(inbox, []);
      res.writeHead(204).end();
      return true;
    }
    if (url.pathname === "/__hooks/received") {
      json(res, 200, received.get(url.searchParams.get("inbox") ?? "") ?? []);
      return true;
    }
    return false;
  };
}
