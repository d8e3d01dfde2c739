/**
 * Rerun (docs/api.md#rerun), pure: which jobs of a finished batch run again, with which arguments,
 * and which are carried over as they ended. By default every job that did not succeed and may
 * safely run again (`retryable`); a job is added by naming it, so a side effect whose outcome is
 * unknown runs again only when someone says so.
 */
import { failureOf } from "../api/error-types";
import type { RerunBody } from "../api/rerun";
import type { JobState } from "../api/job-states";
import { ApiError, badRequest } from "../http/errors";
import { quoteName } from "../calls/names";

/** A job of the batch a rerun is asked of, as the chat reads it: the whole batch, carried-over jobs included. */
export interface RerunSource {
  job_id: string;
  idx: number;
  tool_name: string;
  /** As stored (JSON). */
  tool_args: string;
  tool_call_id: string | null;
  state: JobState;
  error: string | null;
  error_type: string | null;
  read_only: boolean;
  timeout_seconds: number;
  /** The batch's request metadata (compact JSON), or null. */
  metadata: string | null;
}

export interface RerunPlan {
  /** The jobs to run again, in the batch's order, with the arguments they run with. */
  rerun: (RerunSource & { args: Record<string, unknown> })[];
  /** The jobs kept as they ended, by id. */
  carried: string[];
}

const conflict = (code: string, message: string) => new ApiError(409, code, message);

/** What runs again and what is carried over, or a 4xx a person can act on. */
export function planRerun(batchId: string, sources: readonly RerunSource[], body: RerunBody): RerunPlan {
  const known = new Set(sources.map((s) => s.job_id));
  const strangers = [...(body.jobs ?? []), ...Object.keys(body.tool_args ?? {})].filter((id) => !known.has(id));
  if (strangers.length) {
    throw badRequest(
      "unknown_job_ids",
      `Not jobs of batch '${quoteName(batchId)}': ${[...new Set(strangers)].map(quoteName).join(", ")}.`,
      { job_ids: [...new Set(strangers)].map(quoteName) },
    );
  }
  const named = new Set(body.jobs ?? []);
  const chosen = (s: RerunSource) => named.has(s.job_id) || failureOf(s)?.retryable === true;
  const unnamed = Object.keys(body.tool_args ?? {}).filter((id) => !chosen(sources.find((s) => s.job_id === id)!));
  if (unnamed.length) {
    throw badRequest(
      "invalid_rerun",
      `\`tool_args\` names ${unnamed.map(quoteName).join(", ")}, which would not run again: add them to \`jobs\`.`,
    );
  }
  const rerun = sources
    .filter(chosen)
    .map((s) => ({ ...s, args: body.tool_args?.[s.job_id] ?? (JSON.parse(s.tool_args) as Record<string, unknown>) }));
  if (rerun.length === 0) {
    throw conflict(
      "nothing_to_rerun",
      `Every job of batch '${quoteName(batchId)}' succeeded or may not safely run again; name the jobs to rerun in \`jobs\`.`,
    );
  }
  const again = new Set(rerun.map((s) => s.job_id));
  return { rerun, carried: sources.filter((s) => !again.has(s.job_id)).map((s) => s.job_id) };
}
