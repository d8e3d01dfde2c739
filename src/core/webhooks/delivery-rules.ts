/**
 * What one webhook attempt's answer means (docs/api.md#events-and-webhooks): 2xx delivered; 410
 * disables the webhook; 408, 429, 5xx and network errors are retried on a
 * fixed schedule (≈ 27 h in all), then the event fails; any other answer
 * fails it at once, since sending the same request again cannot help.
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;

const S = 1000;
const H = 3600 * S;
/** Delay before retry n (1-based). */
export const RETRY_DELAYS_MS = [5 * S, 5 * 60 * S, 30 * 60 * S, 2 * H, 5 * H, 10 * H, 10 * H];

export type AttemptOutcome =
  | { kind: "delivered" }
  | { kind: "retry"; at: number }
  | { kind: "failed"; reason: string }
  | { kind: "disable"; reason: string };

/**
 * @param status the receiver's HTTP status, or null when no answer came (network error, timeout)
 * @param attempts attempts made so far, this one included
 */
export function afterAttempt(status: number | null, attempts: number, now: number): AttemptOutcome {
  if (status !== null && status >= 200 && status < 300) return { kind: "delivered" };
  if (status === 410)
    return {
      kind: "disable",
      reason: "The receiver answered 410 Gone: the webhook is disabled until the next PUT or PATCH of /v1/config.",
    };
  const retryable = status === null || status === 408 || status === 429 || status >= 500;
  if (!retryable) return { kind: "failed", reason: `The receiver answered ${status}; not retried.` };
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) return { kind: "failed", reason: `Still failing after ${attempts} attempts; gave up.` };
  return { kind: "retry", at: now + delay };
}
