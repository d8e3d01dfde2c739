/**
 * Admission rules for a batch (SPEC §3.2–3.3): the chat-wide active job cap,
 * job ids, deadlines. Pure: the ChatDO calls these inside its one
 * `transactionSync`, with no `await` between the check and the insert.
 */
import { nanoid } from "nanoid";
import { ApiError } from "../../src/http/errors";
import { jobIdPrefix } from "../../src/jobs/job";
import type { BatchRequest, ChatLimits } from "../../src/jobs/messages";
import type { NewJob } from "./job-store";

export function admissionProblem(requested: number, active: number, limits: ChatLimits): ApiError | undefined {
  const limit = limits.max_active_jobs_per_chat;
  if (active + requested <= limit) return undefined;
  return new ApiError(429, "job_limit", `Chat already has ${active} active jobs (limit ${limit}); await or cancel some first.`, {
    running: active,
    requested,
    limit,
  });
}

export interface AdmittedBatch {
  batch_id: string;
  jobs: (NewJob & { log_id: string })[];
}

export function newJobRows(req: BatchRequest, now: number): AdmittedBatch {
  const batch_id = `batch-${nanoid(12)}`;
  return {
    batch_id,
    jobs: req.command.jobs.map((spec) => ({
      job_id: `${jobIdPrefix(spec.tool_name)}-${nanoid(12)}`,
      log_id: `log-${nanoid(12)}`,
      chat_id: req.chat_id,
      batch_id,
      idx: spec.index,
      tool_name: spec.tool_name,
      tool_args: spec.tool_args,
      read_only: spec.read_only,
      timeout_seconds: spec.timeout_seconds,
      created_at: now,
      deadline_at: now + spec.timeout_seconds * 1000,
    })),
  };
}
