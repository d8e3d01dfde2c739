/**
 * Wire schemas of approvals (docs/api.md#approvals), for validation and `/openapi.json`: a
 * person's decision on a call, and the tenant's list of calls waiting for (or given) one.
 */
import { z } from "zod";

export const approvalDecision = z.strictObject({
  decision: z.enum(["approve", "deny"]),
  reason: z.string().max(500).optional().describe("Why; a denied call's error says it."),
  by: z.string().max(128).optional().describe("Who decided, as the bot knows them (a user name, an id)."),
});
export type ApprovalDecisionBody = z.infer<typeof approvalDecision>;

export const approvalEntry = z.object({
  chat_id: z.string(),
  job_id: z.string(),
  tool_name: z.string(),
  tool_args: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("The call's arguments; null when they were too long to list (the job's record has them)."),
  agent: z.string().describe("The agent profile that made the call."),
  status: z
    .enum(["pending", "approved", "denied", "expired", "cancelled"])
    .describe("`cancelled`: the job ended otherwise before anyone decided."),
  requested_at: z.string(),
  expires_at: z.string(),
  decided_at: z.string().nullable(),
  by: z.string().nullable(),
  reason: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
});

export const approvalList = z.object({
  approvals: z.array(approvalEntry),
  next_cursor: z.string().nullable().describe("Pass as `cursor` for the next, older page; null on the last."),
});
export type ApprovalList = z.infer<typeof approvalList>;
