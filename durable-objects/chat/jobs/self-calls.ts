/**
 * The chat's own share of calls starts in one call to this same object: an invocation of its
 * own, so the calls do not hang off the request that admitted them (or the alarm that recovered
 * them), and at most `CALLS_PER_OBJECT` of them, so one invocation's connection budget holds them
 * (docs/architecture.md#call-lanes).
 */
import type { RunTarget } from "../../../src/tools/executors";
import type { ChatStore } from "../storage/chat-store";
import type { RunAnswer } from "./executor";

export interface SelfCalls {
  /** The tool targets looked up for these jobs, if any. */
  targets?: Record<string, RunTarget>;
  /** Logged with the job ids when the call fails, saying what happens instead. */
  onFailure: string;
}

/** Each job's answer, or `failed` for all of them when the call threw (the caller says what retries them). */
export async function runOnSelf(store: ChatStore, jobs: { job_id: string; tool_name?: string }[], o: SelfCalls): Promise<Map<string, RunAnswer | "failed">> {
  const answers = new Map<string, RunAnswer | "failed">();
  if (jobs.length === 0) return answers;
  const targets: Record<string, RunTarget> = {};
  for (const job of jobs) if (job.tool_name && o.targets?.[job.tool_name]) targets[job.tool_name] = o.targets[job.tool_name]!;
  try {
    const ran = await store.self().runJobs(jobs.map((j) => j.job_id), targets);
    jobs.forEach((job, i) => answers.set(job.job_id, ran[i]!));
  } catch (e) {
    console.warn(o.onFailure, jobs.map((j) => j.job_id).join(","), (e as Error).message);
    for (const job of jobs) answers.set(job.job_id, "failed");
  }
  return answers;
}
