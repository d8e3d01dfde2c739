/**
 * Approvals (docs/api.md#approvals), pure: which rule a call is under, what a job
 * keeps of its approval, how a decision meets the one already taken, and the texts a job ends with.
 * The chat's approval gate (durable-objects/chat/gates/approval.ts) keeps and applies them.
 */
import { conditionHolds, type ConditionInput } from "../conditions/condition";
import type { ApprovalRule } from "../config/approval-rules";
import { globMatch } from "../tools/glob";

export type Decision = "approve" | "deny";

/** A person's decision as the route hands it to the chat. */
export interface DecisionRequest {
  decision: Decision;
  by: string | null;
  reason: string | null;
}

/** What a job under an approval rule keeps on its row (JSON in `jobs.approval`). */
export interface JobApproval {
  /** The calling agent's profile. */
  agent: string;
  timeout_seconds: number;
  expires_at: number;
  /** The rule asks the MCP client that made the call (`ask_mcp_client`), as it was at admission. */
  ask_mcp_client?: true;
  /** Once taken: a person's decision, or `expired` when none came in time. */
  decision?: Decision | "expired";
  by?: string | null;
  reason?: string | null;
  decided_at?: number;
}

/** A job's approval, from its row; null when it is under no approval rule. */
export const approvalOf = (job: { approval: string | null }): JobApproval | null =>
  job.approval ? (JSON.parse(job.approval) as JobApproval) : null;

/** Whether a person has still to decide on the job's call. */
export function awaitsDecision(job: { approval: string | null }): boolean {
  const approval = approvalOf(job);
  return approval !== null && approval.decision === undefined;
}

/** What the API says of it: `pending` until decided. */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";

/**
 * The rule a call is under: the first that matches its name and its agent and whose `when` holds for
 * it; null when none does (nothing asks).
 */
export function approvalRuleFor(rules: readonly ApprovalRule[], call: ConditionInput): ApprovalRule | null {
  return (
    rules.find(
      (rule) =>
        rule.tools.some((glob) => globMatch(glob, call.tool)) &&
        (rule.agents ?? ["*"]).some((glob) => globMatch(glob, call.agent)) &&
        conditionHolds(rule.when, call),
    ) ?? null
  );
}

/** A job's approval as it is admitted under `rule`. */
export const requested = (rule: ApprovalRule, agent: string, now: number): JobApproval => ({
  agent,
  timeout_seconds: rule.timeout_seconds,
  expires_at: now + rule.timeout_seconds * 1000,
  ...(rule.ask_mcp_client ? { ask_mcp_client: true as const } : {}),
});

export function approvalStatus(approval: JobApproval): ApprovalStatus {
  if (approval.decision === undefined) return "pending";
  return approval.decision === "approve" ? "approved" : approval.decision === "deny" ? "denied" : "expired";
}

/**
 * A person's decision, taken at `now`, against the job's approval: `apply` it (nothing was decided,
 * the job still waits, its deadline has not come), `repeat` (the same decision again: nothing
 * changes, a retried request is safe), `conflict` (another decision, or the deadline, came first),
 * `expire` (nothing was decided but the deadline has come: the call ends as if the alarm had ended
 * it, and the decision is refused as one that came after it), or `not_awaiting` (the job has no
 * approval, or it ended before anything was decided).
 */
export function meetDecision(
  approval: JobApproval | null,
  jobActive: boolean,
  decision: Decision,
  now: number,
): "apply" | "repeat" | "conflict" | "expire" | "not_awaiting" {
  if (approval === null) return "not_awaiting";
  if (approval.decision === decision) return "repeat";
  if (approval.decision !== undefined) return "conflict";
  if (!jobActive) return "not_awaiting";
  // The deadline decides, not the alarm: an alarm may run late, and a call approved after its
  // deadline would be made although the person was told it would not be.
  return now >= approval.expires_at ? "expire" : "apply";
}

/** The error a denied call ends with. */
export const deniedError = (by: string | null | undefined, reason: string | null | undefined) =>
  `The call was denied by ${by || "a person"}${reason ? `: ${reason}` : ""}.`;

/** The error a call ends with when no decision came by its approval's deadline. */
export const expiredError = (seconds: number) => `No approval within ${seconds} s; the call was not made.`;

/**
 * What the tenant's list of approvals (`GET /v1/approvals`) shows of a call. `cancelled`: its wait ended with
 * no decision (the job ended otherwise).
 */
export interface ApprovalEntry {
  chat_id: string;
  job_id: string;
  tool_name: string;
  /** The call's arguments as JSON; null past `LISTED_ARGS_CHARS` (the job's record has them). */
  tool_args: string | null;
  agent: string;
  status: ApprovalStatus | "cancelled";
  requested_at: number;
  expires_at: number;
  decided_at: number | null;
  by: string | null;
  reason: string | null;
  /** The batch's request metadata (compact JSON), or null. */
  metadata: string | null;
}

/** A listed call's arguments are left out past this: the list is for deciding at a glance, the record has them all. */
export const LISTED_ARGS_CHARS = 2_000;

/** A job's entry in the tenant's list, as its row says now. */
export function approvalEntry(
  job: {
    chat_id: string;
    job_id: string;
    tool_name: string;
    tool_args: string;
    created_at: number;
    metadata: string | null;
    state: string;
  },
  approval: JobApproval,
  jobActive: boolean,
): ApprovalEntry {
  const status = approvalStatus(approval);
  return {
    chat_id: job.chat_id,
    job_id: job.job_id,
    tool_name: job.tool_name,
    tool_args: job.tool_args.length > LISTED_ARGS_CHARS ? null : job.tool_args,
    agent: approval.agent,
    status: status === "pending" && !jobActive ? "cancelled" : status,
    requested_at: job.created_at,
    expires_at: approval.expires_at,
    decided_at: approval.decided_at ?? null,
    by: approval.by ?? null,
    reason: approval.reason ?? null,
    metadata: job.metadata,
  };
}

/** An entry as `GET /v1/approvals` answers it: times as RFC 3339, JSON texts as values. */
export function listedApproval(e: ApprovalEntry) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    chat_id: e.chat_id,
    job_id: e.job_id,
    tool_name: e.tool_name,
    tool_args: e.tool_args === null ? null : (JSON.parse(e.tool_args) as Record<string, unknown>),
    agent: e.agent,
    status: e.status,
    requested_at: iso(e.requested_at)!,
    expires_at: iso(e.expires_at)!,
    decided_at: iso(e.decided_at),
    by: e.by,
    reason: e.reason,
    metadata: e.metadata === null ? null : (JSON.parse(e.metadata) as Record<string, unknown>),
  };
}
