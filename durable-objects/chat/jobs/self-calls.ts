/**
 * Runs jobs each in an invocation of its own: one call to this same object per
 * job, so a slow call never holds up the others and each call's I/O counts
 * against its own invocation. At most `MAX_OPEN_CONNECTIONS` calls are open
 * from one invocation (production's limit, see docs/operations.md).
 */
import type { RunTarget } from "../../../src/tools/executors";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../../src/util/limited";
import type { ChatStore } from "../storage/chat-store";
import type { RunAnswer } from "./executor";

export interface SelfCalls {
  /** The tool targets looked up for the batch (the fast path), if any. */
  targets?: Record<string, RunTarget>;
  /** Calls open at once; fewer when the calling invocation runs one job itself. */
  limit?: number;
  /** Logged with the job id when a call fails, saying what happens instead. */
  onFailure: string;
}

/** Each job's answer, or `failed` when its call threw (the caller says what retries it). */
export async function runOnSelf(store: ChatStore, jobs: { job_id: string; tool_name?: string }[], o: SelfCalls): Promise<Map<string, RunAnswer | "failed">> {
  const self = store.self();
  const answers = new Map<string, RunAnswer | "failed">();
  await forEachLimited(jobs, o.limit ?? MAX_OPEN_CONNECTIONS, async (job) => {
    try {
      answers.set(job.job_id, await self.runJob(job.job_id, job.tool_name ? o.targets?.[job.tool_name] : undefined));
    } catch (e) {
      console.warn(o.onFailure, job.job_id, (e as Error).message);
      answers.set(job.job_id, "failed");
    }
  });
  return answers;
}
