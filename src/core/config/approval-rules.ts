/**
 * The config's `approvals` rules (docs/api.md#approvals): which calls wait for a
 * person before they leave, by the name they run as and the agent that makes them.
 */
import { z } from "zod";
import { MAX_CONDITION_CHARS } from "../conditions/condition";
import { MAX_GLOB_CHARS, MAX_GLOBS } from "./bounds";

/** The longest an approval may be waited for: 30 days. */
export const MAX_APPROVAL_SECONDS = 2_592_000;

const globs = (what: string) =>
  z
    .array(z.string().min(1).max(MAX_GLOB_CHARS))
    .min(1)
    .max(MAX_GLOBS, `an approval rule's ${what} list has at most ${MAX_GLOBS} globs`);

/** A rule's `when`: checked whole (syntax, types, cost) with the rest of the document (config-check). */
export const conditionSchema = z
  .string()
  .min(1)
  .max(MAX_CONDITION_CHARS)
  .optional()
  .describe(
    "A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true.",
  );

export const approvalRuleSchema = z.strictObject({
  tools: globs("tools")
    .refine((tools) => !tools.includes("llm"), {
      message:
        "approval rules cannot match `llm`: a model request is not a call a person approves (limit it with a flow rule)",
    })
    .describe("Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate)."),
  agents: globs("agents")
    .optional()
    .describe("Globs over the calling agent's profile; default every agent, at any level."),
  when: conditionSchema,
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_APPROVAL_SECONDS)
    .default(86_400)
    .describe("With no decision by then, the call ends `error` and is not made."),
  ask_mcp_client: z
    .boolean()
    .optional()
    .describe(
      "Ask the MCP client that made the call: a 2026-07-28 tasks client sees `input_required` with an approval form.",
    ),
});

export const approvalRulesSchema = z.array(approvalRuleSchema).max(32, "at most 32 approval rules");

export type ApprovalRule = z.output<typeof approvalRuleSchema>;
