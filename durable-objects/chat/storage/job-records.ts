/**
 * A chat's job records as the companion routes read them (docs/api.md#companion-routes): one whole, or a page
 * newest first.
 */
import { jobRecord, listedRecord, type JobRecord } from "../../../src/core/jobs/job";
import type { JobStore } from "./job-store";

/** The full record, MCP parts and all; null when the job is not kept. */
export function recordOf(jobs: JobStore, jobId: string): JobRecord | null {
  const job = jobs.withContent(jobId);
  return job ? jobRecord(job) : null;
}

/** `limit` records older than the job `before` (newest first), and where the next page starts. */
export function recordsPage(
  jobs: JobStore,
  limit: number,
  before: string | null,
): { records: Omit<JobRecord, "content">[]; next_before: string | null } {
  const rows = jobs.newestFirst(limit + 1, before);
  const page = rows.slice(0, limit);
  return { records: page.map(listedRecord), next_before: rows.length > limit ? page.at(-1)!.job_id : null };
}
