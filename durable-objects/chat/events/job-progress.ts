/**
 * Progress of the chat's running MCP calls (docs/api.md#payloads, docs/api.md#events-and-webhooks). Each job's latest
 * `notifications/progress` is written to its row at most once a second (rows
 * written are billed; a tool may report far more often: its runner keeps to that) and sent live as
 * `job.progress`, and to the waiting requests that asked for it. That event is no event row: nothing would read it later
 * (the job's snapshot has the latest value, and a finished job shows none),
 * so keeping it would bill a row and an outbox entry per second per job for a
 * webhook that must not get it anyway.
 */
import type { JobRow } from "../../../src/core/jobs/job";
import type { Progress } from "../../../src/core/jobs/progress";
import type { ChatStore } from "../storage/chat-store";
import type { Announcer } from "./announcer";

/** The requests waiting on jobs (`../jobs/waiters`, a floor above this one): what progress tells them. */
export interface ProgressListeners {
  progressed(jobId: string, progress: Progress): void;
}

export class JobProgress {
  constructor(
    private readonly store: ChatStore,
    private readonly announce: Announcer,
    /** The requests waiting on the job that asked to hear its progress (an MCP client's call). */
    private readonly waiters: ProgressListeners,
  ) {}

  /** A value the call's runner already kept to the interval: written as it comes. */
  record(job: JobRow, progress: Progress): void {
    this.#write(job, progress);
  }

  #write(job: JobRow, progress: Progress): void {
    try {
      // A job that ended meanwhile keeps no progress and announces none.
      if (!this.store.jobs.setProgress(job.job_id, JSON.stringify(progress))) return;
      this.announce.jobProgress(job, progress, Date.now());
      this.waiters.progressed(job.job_id, progress);
    } catch (e) {
      // Progress is a courtesy: the call and its outcome go on without it.
      console.warn("could not record MCP progress", job.job_id, (e as Error).message);
    }
  }
}
