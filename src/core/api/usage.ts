/** `GET /v1/usage` (docs/api.md#spending-limits): the tenant's spending this period and by day. */
import { z } from "zod";

const spent = z.object({
  llm_tokens: z.number(),
  llm_calls: z.number(),
  tool_calls: z.number(),
  subagents: z.number().describe("Not counted against a spending limit: 0."),
  cost_usd: z.number(),
});

export const tenantUsage = z.object({
  period: z.enum(["day", "month"]).nullable().describe("The spending limit's period; null without `limits.spend`."),
  period_start: z.string().nullable(),
  limits: z
    .object({
      cost_usd: z.number().optional(),
      llm_tokens: z.number().optional(),
      llm_calls: z.number().optional(),
      tool_calls: z.number().optional(),
    })
    .nullable(),
  used: spent.describe("This period's, across every chat of the tenant."),
  by_day: z
    .array(z.object({ date: z.string(), used: spent }))
    .describe("The last 90 UTC days with spending counted, oldest first; counted while `limits.spend` is set."),
});
