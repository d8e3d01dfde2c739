/**
 * Tenant spending limits (docs/api.md#spending-limits), pure: what a tenant may spend per UTC day
 * or month across every chat, the period a moment falls in, the thresholds an alert is sent at,
 * and the texts. The tenant's spend object (durable-objects/spend) keeps the count; it counts as a
 * batch's budget does (`./budget`): a call takes its share before it starts, a model request is
 * counted as it is let go and its tokens and cost once it answers, so the limit is passed by at most
 * the model requests in flight when it was reached.
 */
import { z } from "zod";
import type { Budget, BudgetField, Reached, Spent } from "./budget";

export const SPEND_FIELDS = ["cost_usd", "llm_tokens", "llm_calls", "tool_calls"] as const satisfies BudgetField[];
export type SpendField = (typeof SPEND_FIELDS)[number];

const count = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
export const spendSchema = z
  .strictObject({
    period: z.enum(["day", "month"]).describe("A UTC day or calendar month."),
    cost_usd: z.number().positive().max(100_000_000).optional().describe("Dollars, with `llm.prices` set."),
    llm_tokens: count.optional().describe("Prompt and completion tokens of every model request."),
    llm_calls: count.optional().describe("Model requests of every agent loop."),
    tool_calls: count.optional().describe("Tool calls made."),
    alert_at: z
      .array(z.number().gt(0).lt(1))
      .max(8)
      .default([0.5, 0.8])
      .describe(
        "Fractions of a limit at which `tenant.spend_alert` is sent, once each per period; and once at the limit.",
      ),
  })
  .refine((s) => SPEND_FIELDS.some((f) => s[f] !== undefined), {
    message: "a spending limit needs at least one of cost_usd, llm_tokens, llm_calls, tool_calls",
  });

export type SpendLimits = z.output<typeof spendSchema>;
export type Period = SpendLimits["period"];

/** The limits as a budget's fields, for the counting rules a batch's budget uses. */
export const spendBudget = (limits: SpendLimits): Budget =>
  Object.fromEntries(SPEND_FIELDS.flatMap((f) => (limits[f] === undefined ? [] : [[f, limits[f]]])));

/** The UTC day of `now`, `2026-12-07`. */
export const dayOf = (now: number) => new Date(now).toISOString().slice(0, 10);

/** The period `now` falls in: its day, or its month (`2026-12`). */
export const periodOf = (period: Period, now: number) => (period === "day" ? dayOf(now) : dayOf(now).slice(0, 7));

/** The first moment of that period, as ISO text. */
export const periodStart = (key: string) => `${key.length === 7 ? `${key}-01` : key}T00:00:00.000Z`;

/** `tenant.spend_alert`'s data (docs/api.md#spending-limits): `threshold` 1 when the limit is reached. */
export interface SpendAlert {
  field: SpendField;
  used: number;
  limit: number;
  period: Period;
  threshold: number;
}

/**
 * The alerts `spent` calls for that were not sent yet this period (`sent`: their keys, `field@threshold`),
 * lowest first: a threshold is crossed once the spend is at or past that fraction of the limit.
 */
export function alertsDue(limits: SpendLimits, spent: Spent, sent: ReadonlySet<string>): SpendAlert[] {
  const thresholds = [...new Set([...limits.alert_at, 1])].sort((a, b) => a - b);
  return SPEND_FIELDS.flatMap((field) => {
    const limit = limits[field];
    if (limit === undefined) return [];
    return thresholds
      .filter((t) => spent[field] >= t * limit && !sent.has(alertKey(field, t)))
      .map((threshold) => ({ field, used: round(field, spent[field]), limit, period: limits.period, threshold }));
  });
}

export const alertKey = (field: SpendField, threshold: number) => `${field}@${threshold}`;

const round = (field: SpendField, n: number) => (field === "cost_usd" ? Math.round(n * 1e6) / 1e6 : n);

/** The text a call not made, or a model request refused, ends with. */
export const spendLimitError = ({ field, used, limit }: Reached, period: Period) =>
  `Spending limit reached: ${field} ${used} of ${limit} for this ${period}; the call was not made.`;
