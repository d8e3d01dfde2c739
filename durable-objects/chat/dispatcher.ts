/**
 * How a chat's jobs get going: the queue copy every job gets (SPEC §1), then
 * the fast path, which calls this same object once per job so each call runs
 * in an invocation of its own (SPEC §1: 6 connections per invocation). Every
 * step is best effort on top of durable state: the dispatch watchdog re-sends
 * what never started, the heartbeat recovers what was lost mid-call,
 * deadlines end what does not stop.
 */
import type { JobRow } from "../../src/jobs/job";
import type { JobMessage } from "../../src/jobs/messages";
import { chatName, tenantName } from "../../src/objects/names";
import type { RunTarget } from "../../src/tools/executors";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../src/util/limited";
import type { JobStore } from "./job-store";
import { readMeta } from "./schema";

export interface DispatcherDeps {
  ctx: DurableObjectState;
  /** Read at each use: the object's bindings (tests swap them to inject faults). */
  env(): Env;
  sql: SqlStorage;
  jobs: JobStore;
  /** Claims a built-in `wait` here: it needs no call, its durable timer ends it. */
  claimWait(jobId: string): Promise<void>;
  /** Stops a call running in this instance. */
  stopCall(jobId: string): void;
}

export class Dispatcher {
  constructor(private readonly d: DispatcherDeps) {}

  address(): { tenant: string; chat_id: string } {
    return { tenant: readMeta(this.d.sql, "tenant")!, chat_id: readMeta(this.d.sql, "chat_id")! };
  }

  /**
   * The queue copies first, then the fast path; if the copies could not be sent, the watchdog
   * re-sends them and the consumer starts the jobs. The tools' targets are looked up once for the
   * batch, beside the send.
   */
  async start(jobIds: string[]): Promise<void> {
    const jobs = this.d.jobs.many(jobIds);
    for (const job of jobs) if (job.tool_name === "wait") await this.d.claimWait(job.job_id);
    const toRun = jobs.filter((j) => j.tool_name !== "wait");
    if (toRun.length === 0) return;
    const [sent, targets] = await Promise.all([this.send(toRun.map((j) => ({ job_id: j.job_id, attempt: 1 }))), this.#targets(toRun)]);
    if (sent) this.d.ctx.waitUntil(this.#fastStart(toRun, targets));
  }

  /** Sends the queue copies; false when the send failed. */
  async send(jobs: { job_id: string; attempt: number }[]): Promise<boolean> {
    const address = this.address();
    const messages = jobs.map(({ job_id, attempt }) => ({ body: { ...address, job_id, attempt } satisfies JobMessage }));
    try {
      await this.d.env().JOBS.sendBatch(messages);
      return true;
    } catch (e) {
      console.warn("queue send failed; the watchdog will retry", (e as Error).message);
      return false;
    }
  }

  /** One call to this object per job; a job the queue copy reached first is a duplicate there. */
  async #fastStart(jobs: JobRow[], targets: Record<string, RunTarget>): Promise<void> {
    const self = this.d.env().CHAT.get(this.d.ctx.id);
    await forEachLimited(jobs, MAX_OPEN_CONNECTIONS, async (job) => {
      try {
        await self.runJob(job.job_id, targets[job.tool_name]);
      } catch (e) {
        console.warn("fast start failed; the queue copy will start the job", job.job_id, (e as Error).message);
      }
    });
  }

  /** The batch's tool targets in one call; on failure each job looks its own up. */
  async #targets(jobs: JobRow[]): Promise<Record<string, RunTarget>> {
    const names = [...new Set(jobs.filter((j) => j.kind === "tool").map((j) => j.tool_name))];
    if (names.length === 0) return {};
    try {
      return await this.d.env().TENANT.getByName(tenantName(this.address().tenant)).runTargets(names);
    } catch (e) {
      console.warn("tool targets lookup failed; each job looks its own up", (e as Error).message);
      return {};
    }
  }

  /** Stops what works on a job the chat ended itself: its call here, and a subordinate's child turn. */
  async stopWork(job: JobRow): Promise<void> {
    this.d.stopCall(job.job_id);
    if (job.kind !== "subordinate" || !job.context_id) return;
    const { tenant, chat_id } = this.address();
    try {
      await this.d.env().CHAT.getByName(chatName(tenant, job.context_id)).stopTurn({ tenant, chat_id: job.context_id, parent_job_id: job.job_id, parent_chat_id: chat_id });
    } catch (e) {
      console.warn("stopping a child's turn failed (best effort)", job.job_id, (e as Error).message);
    }
  }
}
