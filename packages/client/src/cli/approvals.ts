/**
 * The CLI's approval commands (docs/api.md#approvals): `fanout approvals` lists the calls waiting
 * for a person (`--decided`: those decided), `fanout approve <chat> <job>` and `fanout deny <chat>
 * <job>` decide one, with `--by` and `--reason`. Kept apart from `main.ts`, which only registers them.
 */
import type { Fanout } from "../client.js";
import type { ApprovalEntry } from "../types.js";
import type { CliIo } from "./io.js";
import { cell, columns } from "./format.js";

export const APPROVAL_USAGE = `  approvals [--decided]                   calls waiting for a person's decision (or decided), newest first
  approve  <chat> <job_id> [--by <who>] [--reason <text>]   let a waiting call run
  deny     <chat> <job_id> [--by <who>] [--reason <text>]   end a waiting call, not made`;

export const APPROVAL_OPTIONS = {
  decided: { type: "boolean" },
  by: { type: "string" },
  reason: { type: "string" },
} as const;

interface Run {
  fanout: Fanout;
  args: string[];
  options: { json?: boolean; decided?: boolean; by?: string; reason?: string };
  io: CliIo;
  usage(message: string): Error;
}

const decide =
  (decision: "approve" | "deny") =>
  async ({ fanout, args, options, io, usage }: Run): Promise<number> => {
    const [chat, job, ...more] = args;
    if (!chat || !job || more.length > 0)
      throw usage(`${decision} takes a chat and a job id: fanout ${decision} <chat> <job_id>`);
    const decided = { by: options.by, reason: options.reason };
    const answer =
      decision === "approve" ? await fanout.approve(chat, job, decided) : await fanout.deny(chat, job, decided);
    io.stdout.write(
      `${options.json ? JSON.stringify(answer) : `${answer.job_id} (${answer.tool_name}) ${decision === "approve" ? "approved" : "denied"}: ${answer.state}`}\n`,
    );
    return 0;
  };

export const APPROVAL_COMMANDS: Record<string, (run: Run) => Promise<number>> = {
  async approvals({ fanout, args, options, io, usage }) {
    if (args.length > 0) throw usage("approvals takes no arguments: fanout approvals [--decided]");
    const status = options.decided ? "decided" : "pending";
    const approvals: ApprovalEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await fanout.approvals({ status, cursor, limit: 200 });
      approvals.push(...page.approvals);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && approvals.length < 1000);
    io.stdout.write(`${options.json ? JSON.stringify({ approvals }) : approvalTable(approvals, status)}\n`);
    return 0;
  },
  approve: decide("approve"),
  deny: decide("deny"),
};

/** Calls as aligned columns: chat, job, tool, who asked, status, until (or decided at, by whom), arguments. */
export function approvalTable(entries: ApprovalEntry[], status: "pending" | "decided"): string {
  if (entries.length === 0) return status === "pending" ? "no calls wait for a decision" : "no decided calls";
  const rows = entries.map((e) => [
    e.chat_id,
    e.job_id,
    e.tool_name,
    e.agent,
    e.status,
    status === "pending" ? `until ${e.expires_at}` : `${e.decided_at ?? "-"}${e.by ? ` by ${e.by}` : ""}`,
    cell(e.tool_args === null ? "(too long to list)" : JSON.stringify(e.tool_args), 50),
  ]);
  return columns(
    ["chat", "job", "tool", "agent", "status", status === "pending" ? "expires" : "decided", "arguments"],
    rows,
  );
}
