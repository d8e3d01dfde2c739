/**
 * Approvals asked of the MCP client (docs/mcp.md#approvals): a rule with `ask_mcp_client` shows
 * its waiting job to a 2026-07-28 tasks client as `input_required`, with an elicitation form whose
 * answer (`tasks/update`) is the decision. Pure: the form, and the decision read from an answer.
 */
import type { Decision } from "../approvals/approval";
import type { McpJobView } from "./job-view";

/** The key of the one input request an approval asks. */
export const APPROVAL_INPUT = "approval";

/** The most of the call's arguments the form's message shows. */
const SHOWN_ARGS_CHARS = 2_000;
const REASON_MAX_CHARS = 500;

export function approvalInputRequests(view: McpJobView) {
  let args = JSON.stringify(view.tool_args);
  if (args.length > SHOWN_ARGS_CHARS) args = `${args.slice(0, SHOWN_ARGS_CHARS)}…`;
  return {
    [APPROVAL_INPUT]: {
      method: "elicitation/create" as const,
      params: {
        mode: "form" as const,
        message: `Approve the call of tool '${view.snapshot.tool_name}' with arguments ${args}? It runs only once approved.`,
        requestedSchema: {
          type: "object" as const,
          properties: {
            decision: {
              type: "string" as const,
              title: "Decision",
              enum: ["approve", "deny"],
              enumNames: ["Approve", "Deny"],
            },
            reason: { type: "string" as const, title: "Reason (optional)", maxLength: REASON_MAX_CHARS },
          },
          required: ["decision"],
        },
      },
    },
  };
}

export type ReadDecision =
  | { decision: Decision; reason: string | null }
  /** The person closed the form without deciding: the call keeps waiting. */
  | { decision: null }
  | { invalid: string };

/**
 * The decision in an elicitation answer: `accept` with `decision` approve or deny (and an optional
 * reason), `decline` denies, `cancel` decides nothing.
 */
export function readDecision(answer: unknown): ReadDecision {
  if (typeof answer !== "object" || answer === null) return { invalid: "the answer is not an elicitation result" };
  const { action, content } = answer as { action?: unknown; content?: Record<string, unknown> };
  if (action === "cancel") return { decision: null };
  if (action === "decline") return { decision: "deny", reason: null };
  if (action !== "accept") return { invalid: "`action` is accept, decline or cancel" };
  const decision = content?.decision;
  if (decision !== "approve" && decision !== "deny")
    return { invalid: "an accepted form must set `decision` to approve or deny" };
  const reason = content?.reason;
  if (reason !== undefined && (typeof reason !== "string" || reason.length > REASON_MAX_CHARS))
    return { invalid: `\`reason\` is a string of at most ${REASON_MAX_CHARS} characters` };
  return { decision, reason: reason || null };
}
