/**
 * The MCP endpoint's reads of a job: its view, and a wait for its end that the worker holds, off
 * the chat (docs/architecture.md#awaits), with a tick every 15 s for the progress that keeps a
 * client's stream alive, and an MCP tool's own progress passed on as the chat sends it.
 */
import type { McpJobView } from "../../core/mcp-server/job-view";
import { type HeardProgress, untilJobsEnd } from "../requests/await-jobs";
import type { McpSession } from "./session";

/** A waiting client hears something at least this often, so no proxy cuts its stream as idle. */
export const PROGRESS_EVERY_MS = 15_000;

/** The job as the endpoint shows it; undefined when neither the chat nor the job is there. */
export async function readView(s: McpSession, jobId: string, collect: boolean): Promise<McpJobView | undefined> {
  const answer = (await s.chat().jobView(jobId, s.limits, collect)) as { view: McpJobView | null } | null;
  return answer?.view ?? undefined;
}

/**
 * True once the job ended, false when `waitMs` ran out first; `tick` runs between slices of the wait,
 * and `onProgress` hears the job's MCP progress as it comes.
 */
export async function waitForJob(
  s: McpSession,
  jobId: string,
  waitMs: number,
  tick?: () => Promise<void>,
  onProgress?: (progress: HeardProgress) => void,
): Promise<boolean> {
  const end = Date.now() + waitMs;
  for (;;) {
    const left = end - Date.now();
    if (left <= 0) return false;
    const slice = tick ? Math.min(left, PROGRESS_EVERY_MS) : left;
    const sliceEnd = Date.now() + slice;
    const woke = await untilJobsEnd(s.chat, { job_ids: [jobId], wait_ms: slice }, undefined, onProgress);
    if (woke) return true;
    // Back before its slice ran out: the chat is gone, and the read that follows says so.
    if (Date.now() < sliceEnd - 50) return false;
    if (tick && Date.now() < end) await tick();
  }
}
