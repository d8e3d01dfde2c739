/**
 * What each group of the client's calls is built on: the routes typed from `./openapi.ts` (checked
 * by openapi-fetch), the address and WebSocket class event streams connect with, and the rule for
 * repeating a request fanout could not answer (`./requests.ts`). `Fanout` makes one per client and
 * hands it to every group, so they share one connection and one retry count.
 */
import createClient from "openapi-fetch";
import type { paths } from "./openapi.js";
import { send, type Result } from "./requests.js";

/** The request body the wire schema describes for a POST route. */
export type Body<P extends keyof paths> = paths[P] extends {
  post: { requestBody: { content: { "application/json": infer B } } };
}
  ? B
  : never;

export class Routes {
  readonly api: ReturnType<typeof createClient<paths>>;

  constructor(
    readonly url: URL,
    apiKey: string,
    readonly attempts: number,
    fetch: ((request: Request) => Promise<Response>) | undefined,
    readonly webSocket: typeof WebSocket | undefined,
  ) {
    this.api = createClient<paths>({
      baseUrl: url.origin + url.pathname.replace(/\/$/, ""),
      headers: { authorization: `Bearer ${apiKey}` },
      ...(fetch ? { fetch } : {}),
    });
  }

  /** One route call, repeated while fanout could not answer; refusals are thrown as FanoutError. */
  send<T>(signal: AbortSignal | undefined, request: () => Promise<Result<T>>, attempts = this.attempts): Promise<T> {
    return send(signal, request, attempts);
  }
}
