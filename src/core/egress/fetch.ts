/**
 * The fetch behind every outbound request fanout makes (docs/api.md#outbound-urls): tenant
 * tools, `http_request`, MCP calls and listings, the LLM, webhooks, Telegram.
 *
 * The URL is checked against the egress rules again at send time: the config
 * holding it may have been accepted under older rules, by an older version,
 * or while ALLOW_PRIVATE_EGRESS was true. A redirect is never followed but is
 * the answer: its target was never checked, and a secret bound to one origin
 * must not travel on to another.
 */
import { egressProblem } from "./policy";

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** No request was made: the egress rules refuse its URL, so trying again cannot help. */
export class EgressRefused extends Error {
  override readonly name = "EgressRefused";

  /** `problem`: the egress rule's words, e.g. "must use https:"; the URL itself is left out (it may carry a token). */
  constructor(readonly problem: string) {
    super(`Outbound request refused: its URL ${problem}.`);
  }
}

export function egressFetch(allowPrivateEgress: boolean, send: Fetch = (input, init) => fetch(input, init)): Fetch {
  return async (input, init) => {
    const problem = egressProblem(input instanceof Request ? input.url : String(input), allowPrivateEgress);
    if (problem) throw new EgressRefused(problem);
    return send(input, { ...init, redirect: "manual" });
  };
}

/** The refusal that stopped a request, when that is what `e` is or wraps (clients wrap what their fetch throws). */
export function egressRefusal(e: unknown): EgressRefused | undefined {
  for (let cause = e, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    if (cause instanceof EgressRefused) return cause;
  }
  return undefined;
}
