/**
 * The config's `flow` rules (docs/api.md#flow-control): how many matching calls may
 * run at once, and start per period, per key.
 */
import { z } from "zod";
import { conditionSchema } from "./approval-rules";
import { MAX_GLOB_CHARS, MAX_GLOBS, NAME_PATTERN } from "./bounds";

/** Where a flow rule finds each call's key: a field of the batch's request metadata or of the call's arguments. */
export const FLOW_KEY_PATTERN = /^(metadata|args)\.[A-Za-z0-9_-]{1,64}$/;

const count = (min: number, max: number) => z.number().int().min(min).max(max);

export const flowRuleSchema = z
  .strictObject({
    name: z.string().regex(NAME_PATTERN, `flow rule names must match ${NAME_PATTERN.source}`),
    tools: z
      .array(z.string().min(1).max(MAX_GLOB_CHARS))
      .min(1)
      .max(MAX_GLOBS, `a flow rule's tools list has at most ${MAX_GLOBS} globs`)
      .describe(
        "Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate); `llm` is every model request of an agent loop.",
      ),
    when: conditionSchema,
    concurrency: count(1, 10_000).optional().describe("Matching calls running at once, per key."),
    rate: z
      .strictObject({
        limit: count(1, 100_000),
        period_seconds: count(1, 86_400),
        burst: count(1, 100_000).optional().describe("Starts at once after a quiet spell; default `limit`."),
      })
      .optional()
      .describe("Starts per period, per key, spread evenly."),
    key: z
      .string()
      .regex(FLOW_KEY_PATTERN, "a flow rule's key is metadata.<field> or args.<field>")
      .optional()
      .describe('Each distinct value of this field has its own limits; a missing one is the key "".'),
    on_limit: z.enum(["queue", "reject"]).default("queue"),
    // At most 10,000: a key's line is kept in one row, which must stay well under 2 MB.
    max_queued: count(0, 10_000)
      .default(1000)
      .describe("Calls waiting per key (at most 10,000); past it a call is refused."),
  })
  .refine((r) => r.concurrency !== undefined || r.rate !== undefined, {
    message: "a flow rule needs `concurrency`, `rate` or both",
  });

export const flowRulesSchema = z.array(flowRuleSchema).max(32, "at most 32 flow rules");

export type FlowRule = z.output<typeof flowRuleSchema>;

/** What the schema cannot say alone: each rule's name is its own. */
export function flowRuleProblems(rules: readonly FlowRule[]): string[] {
  const seen = new Set<string>();
  return rules.flatMap((r) => {
    if (seen.has(r.name)) return [`flow: the rule name '${r.name}' is used twice`];
    seen.add(r.name);
    return [];
  });
}
