/**
 * How a chat's jobs leave it: the queue copy every job gets (SPEC §1), the
 * fast path straight to the job's runner, and stopping the work on a job the
 * chat ended itself. Every call here is best effort on top of durable state:
 * the dispatch watchdog re-sends what did not leave, deadlines end what does
 * not stop.
 */
import type { JobRow } from "../../src/jobs/job";
import type { ClaimResult, JobMessage } from "../../src/jobs/messages";
import { chatName, runnerName } from "../../src/names";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../src/util/limited";
import type { JobStore } from "./job-store";
import { readMeta } from "./schema";

export interface DispatcherDeps {
  ctx: DurableObjectState;
  /** Read at each use: the object's bindings (tests swap them to inject faults). */
  env(): Env;
  sql: SqlStorage;
  jobs: JobStore;
  /** Claims a job in this chat (for a runner on the fast path, or the built-in `wait`, which needs none). */
  claimHere(jobId: string): Promise<ClaimResult>;
  /** The runner has a job claimed for it: the dispatch watchdog can stand down. */
  handedOver(jobId: string): void;
}

export class Dispatcher {
  constructor(private readonly d: DispatcherDeps) {}

  address(): { tenant: string; chat_id: string } {
    return { tenant: readMeta(this.d.sql, "tenant")!, chat_id: readMeta(this.d.sql, "chat_id")! };
  }

  /**
   * The queue copy first, then the fast path; if the copy could not be sent, the watchdog resends.
   * The built-in `wait` needs no runner: it is claimed here and ends by its durable timer, so a
   * queue outage cannot hold it up.
   */
  async start(jobIds: string[]): Promise<void> {
    const jobs = this.d.jobs.many(jobIds);
    for (const job of jobs) if (job.tool_name === "wait") await this.d.claimHere(job.job_id);
    const toRun = jobs.filter((j) => j.tool_name !== "wait").map((j) => j.job_id);
    if (toRun.length && (await this.send(toRun, 1))) this.d.ctx.waitUntil(this.#fastStart(toRun));
  }

  /** Sends the queue copies; false when the send failed. */
  async send(jobIds: string[], attempt: number): Promise<boolean> {
    const address = this.address();
    const messages = jobIds.map((job_id) => ({ body: { ...address, job_id, attempt } satisfies JobMessage }));
    try {
      await this.d.env().JOBS.sendBatch(messages);
      return true;
    } catch (e) {
      console.warn("queue send failed; the watchdog will retry", (e as Error).message);
      return false;
    }
  }

  /**
   * The fast path: hand new jobs to their runners directly instead of waiting
   * for the queue to deliver (tens of ms per hop). The queue copy then arrives
   * as a duplicate and is absorbed by the runner's record or the claim, so a
   * failure here costs only the shortcut.
   */
  async #fastStart(jobIds: string[]): Promise<void> {
    const address = this.address();
    await forEachLimited(jobIds, MAX_OPEN_CONNECTIONS, async (job_id) => {
      const job = this.d.jobs.get(job_id);
      if (job?.state !== "pending") return;
      try {
        // Claimed here and handed over with its lease: the runner saves a round trip back for the claim.
        // Until it confirms, the watchdog stays: a lost hand-over is started by a queue copy, whose
        // runner claims again and gets the same lease.
        const claim = await this.d.claimHere(job_id);
        if (claim.status !== "claimed") return;
        const runner = this.d.env().RUNNER.getByName(runnerName(address.tenant, job_id));
        await runner.start({ ...address, job_id, attempt: 1 }, claim);
        this.d.handedOver(job_id);
      } catch (e) {
        console.warn("fast start failed; the queue copy will start the job", job_id, (e as Error).message);
      }
    });
  }

  /** Stops what works on a job the chat ended itself: its runner, and a subordinate's child turn. */
  async stopWork(job: JobRow): Promise<void> {
    const { tenant, chat_id } = this.address();
    try {
      await this.d.env().RUNNER.getByName(runnerName(tenant, job.job_id)).abort(job.job_id);
      if (job.kind === "subordinate" && job.context_id) {
        await this.d.env().CHAT.getByName(chatName(tenant, job.context_id)).stopTurn({ tenant, chat_id: job.context_id, parent_job_id: job.job_id, parent_chat_id: chat_id });
      }
    } catch (e) {
      console.warn("stopping a job's work failed (best effort)", job.job_id, (e as Error).message);
    }
  }
}
