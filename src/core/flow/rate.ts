/**
 * A flow rule's smoothed rate (docs/api.md#flow-control): at most `limit` starts per
 * `period_seconds`, spread evenly, with up to `burst` at once after a quiet spell. This is the
 * generic cell rate algorithm: one number of state (the theoretical arrival time of the next
 * start), so it fits in a row and costs no timer; over any span of `t` ms it lets through at most
 * `burst + t / interval` starts.
 */
export interface RateRule {
  limit: number;
  period_seconds: number;
  /** Default: `limit`. */
  burst?: number;
}

/** When the next start would be on time, were starts evenly spaced (ms); 0 for a rule never used. */
export type RateState = number;

const interval = (r: RateRule) => (r.period_seconds * 1000) / r.limit;
const tolerance = (r: RateRule) => ((r.burst ?? r.limit) - 1) * interval(r);

/** Whether a start may happen `now`, and the state after it; when not, the earliest time it may. */
export function takeStart(
  rule: RateRule,
  state: RateState,
  now: number,
): { ok: true; state: RateState } | { ok: false; at: number } {
  const due = Math.max(state, now);
  if (due - now > tolerance(rule)) return { ok: false, at: Math.ceil(due - tolerance(rule)) };
  return { ok: true, state: due + interval(rule) };
}

/** How many starts the rule would allow at once `now` (what `GET /v1/flow` shows). */
export function startsAvailable(rule: RateRule, state: RateState, now: number): number {
  const burst = rule.burst ?? rule.limit;
  const spare = tolerance(rule) - (Math.max(state, now) - now);
  return Math.max(0, Math.min(burst, Math.floor(spare / interval(rule)) + 1));
}
