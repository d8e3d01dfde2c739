/**
 * One webhook attempt: the event's stored body, signed (Standard Webhooks)
 * with `webhook-id` = the event id so a retry is recognisably the same event,
 * bounded to 10 s, redirects not followed, and only to a URL the egress rules
 * still allow (docs/api.md#outbound-urls: checked again at send time, whatever was accepted).
 */
import { egressProblem } from "../egress/policy";
import { egressFetch } from "../egress/fetch";
import { networkErrorText } from "../http/network-error";
import { signatureHeaders } from "../tools/signing";
import { boundedSignal } from "../util/abort";
import { ATTEMPT_TIMEOUT_MS } from "./delivery-rules";

export interface WebhookTarget {
  url: string;
  secret: string;
  /** Disabled by a 410 under this config version; the next PUT /v1/config enables it again. */
  disabled: boolean;
  version: number;
}

export interface AttemptResult {
  /** null: no answer (network error or timeout). */
  status: number | null;
  error: string;
  /** No request was made: the egress rules refuse the URL, so trying again cannot help. */
  refused?: true;
}

export async function sendWebhook(
  url: string,
  secret: string,
  event: { id: string; body: string },
  stop: AbortSignal,
  allowPrivateEgress: boolean,
): Promise<AttemptResult> {
  const problem = egressProblem(url, allowPrivateEgress);
  if (problem)
    return {
      status: null,
      error: `The webhook URL ${problem}; outbound requests there are not allowed.`,
      refused: true,
    };
  const bounded = boundedSignal(stop, ATTEMPT_TIMEOUT_MS);
  try {
    const headers = await signatureHeaders(secret, event.id, event.body);
    const res = await egressFetch(allowPrivateEgress)(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "fanout-webhooks", ...headers },
      body: event.body,
      signal: bounded.signal,
    });
    // Drain the body so the connection is released; its content is not needed.
    await res.body?.cancel();
    return { status: res.status, error: res.ok ? "" : `HTTP ${res.status}` };
  } catch (e) {
    const timedOut = (e as Error).name === "TimeoutError" || bounded.signal.reason?.name === "TimeoutError";
    return {
      status: null,
      error: timedOut ? `No answer within ${ATTEMPT_TIMEOUT_MS / 1000} s.` : networkErrorText(e, url),
    };
  } finally {
    bounded.release();
  }
}
