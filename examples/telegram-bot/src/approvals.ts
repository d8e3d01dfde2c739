/**
 * Asking the person in the chat about a call fanout holds for approval (fanout's
 * `job.approval_requested`): the message with Approve and Deny buttons, what a pressed button
 * means, and the message's text once the call is decided. Pure, so it is tested on its own.
 */
import type { InlineKeyboard } from "./telegram";

/** What fanout says of a call that waits for a person (the event's `data`). */
export interface ApprovalRequest {
  job_id: string;
  chat_id: string;
  tool_name: string;
  tool_args: Record<string, unknown>;
  agent: string;
  approval_expires_at: string;
}

export type Decision = "approve" | "deny";

/** The arguments are shown up to this many characters: enough to decide, short enough to read. */
const SHOWN_ARGS = 600;

/** `callback_data` is at most 64 bytes: a prefix, the decision and fanout's job id (at most 25 characters). */
const PREFIX = "fanout";

export function approvalMessage(request: ApprovalRequest): { text: string; keyboard: InlineKeyboard } {
  const args = JSON.stringify(request.tool_args, null, 1);
  const shown = args.length > SHOWN_ARGS ? `${args.slice(0, SHOWN_ARGS)}…` : args;
  const who = request.agent === "default" ? "The assistant" : `The ${request.agent} agent`;
  const text = `${who} wants to run ${request.tool_name}:\n${shown}\nApprove it before ${request.approval_expires_at.slice(0, 16).replace("T", " ")} UTC?`;
  const button = (label: string, decision: Decision) => ({
    text: label,
    callback_data: `${PREFIX}:${decision}:${request.job_id}`,
  });
  return { text, keyboard: { inline_keyboard: [[button("Approve", "approve"), button("Deny", "deny")]] } };
}

/** The decision a pressed button carries, or undefined for a button that is not one of these. */
export function pressedDecision(data: string): { decision: Decision; job_id: string } | undefined {
  const [prefix, decision, jobId, ...rest] = data.split(":");
  if (prefix !== PREFIX || (decision !== "approve" && decision !== "deny") || !jobId || rest.length) return undefined;
  return { decision, job_id: jobId };
}

const OUTCOMES = { approve: "✅ Approved", deny: "❌ Denied", expired: "⌛ Nobody decided in time:" } as const;

/** The message once the call is decided (here, elsewhere, or by its deadline). */
export function decidedText(toolName: string, decision: Decision | "expired", by: string | null): string {
  if (decision === "expired") return `${OUTCOMES.expired} ${toolName} was not run.`;
  return `${OUTCOMES[decision]} by ${by ?? "someone"}: ${toolName} ${decision === "approve" ? "runs now" : "will not run"}.`;
}
