/**
 * What a job under flow rules keeps on its row (docs/api.md#flow-control): the rules and keys it
 * holds slots under, the rules as they were when it was admitted (its flow objects judge it by the
 * rules the latest call brought), and the rule it waits at, which its snapshot shows.
 */
import type { FlowRule } from "../config/flow-rules";
import { flowHolds, type FlowCall, type FlowHold } from "./rules";
import type { SlotRule } from "./slots";

export interface JobFlow {
  holds: FlowHold[];
  rules: Record<string, SlotRule>;
  /** When `rules` were read (the call's admission): its flow objects keep the newest rules they are brought. */
  as_of?: number;
  /** The rule and key it last waited at. */
  at?: FlowHold;
}

const slotRule = (r: FlowRule): SlotRule => ({
  name: r.name,
  ...(r.key ? { keyed: true } : {}),
  ...(r.concurrency !== undefined ? { concurrency: r.concurrency } : {}),
  ...(r.rate ? { rate: r.rate } : {}),
  on_limit: r.on_limit,
  max_queued: r.max_queued,
});

/** The flow a call is under, or null when no rule matches it (it is then never asked about). */
export function planFlow(rules: readonly FlowRule[], call: FlowCall, now: number): JobFlow | null {
  if (rules.length === 0) return null;
  const holds = flowHolds(rules, call);
  if (holds.length === 0) return null;
  const used = new Set(holds.map((h) => h.rule));
  return {
    holds,
    rules: Object.fromEntries(rules.filter((r) => used.has(r.name)).map((r) => [r.name, slotRule(r)])),
    as_of: now,
  };
}

/** The text a job ends with when its deadline comes while it waits at a flow rule. */
export const flowDeadlineError = (seconds: number, rule: string) =>
  `Job waited ${seconds} s for flow rule '${rule}' and reached its deadline (job_timeout) without starting.`;

/** The rule and key a job waits at (the first it is under, until it has asked). */
export function waitingAt(flow: string): FlowHold {
  const parsed = JSON.parse(flow) as JobFlow;
  return parsed.at ?? parsed.holds[0]!;
}

/** Where a job waits, as its snapshot and record say it: the rule, and the key when the rule has one. */
export function flowWait(flow: string): { rule: string; key?: string } {
  const { rule, key } = waitingAt(flow);
  return { rule, ...(key ? { key } : {}) };
}
