/**
 * When a tool call may be tried again (docs/api.md#attempts-and-retries). A read-only tool is retried
 * after 408/429/5xx and network errors; a side-effecting one only after a
 * 408/429/5xx response, because after a network error it may already have run.
 * A failure before anything reached the tool (an MCP server that could not be
 * connected to) is retried whatever the tool does.
 * Backoff: full jitter over 1 s·2^n, capped at 30 s, honouring Retry-After.
 */
export type AttemptFailure =
  | { kind: "status"; status: number; retryAfterMs?: number }
  | { kind: "network" }
  | { kind: "unsent" };

const RETRYABLE_STATUS = (s: number) => s === 408 || s === 429 || s >= 500;
const BASE_MS = 1000;
const CAP_MS = 30_000;

export function isRetryable(failure: AttemptFailure, readOnly: boolean): boolean {
  if (failure.kind === "unsent") return true;
  if (failure.kind === "network") return readOnly;
  return RETRYABLE_STATUS(failure.status);
}

/** Delay before attempt `attempt + 1` (attempts count from 1). */
export function backoffMs(attempt: number, retryAfterMs: number | undefined, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), CAP_MS);
  return Math.floor(random() * Math.min(CAP_MS, BASE_MS * 2 ** (attempt - 1)));
}

/** `Retry-After` as delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
