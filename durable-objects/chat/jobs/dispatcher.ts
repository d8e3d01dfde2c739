/**
 * How a chat's jobs get going: the queue copy every job gets (docs/architecture.md#platform-rules), then
 * the fast path, which calls this same object once per job so each call runs
 * in an invocation of its own (docs/architecture.md#platform-rules: 6 connections per invocation). Every
 * step is best effort on top of durable state: the dispatch watchdog re-sends
 * what never started, the heartbeat recovers what was lost mid-call,
 * deadlines end what does not stop.
 */
import { endsByTimer, type JobRow } from "../../../src/jobs/job";
import type { JobMessage } from "../../../src/jobs/messages";
import type { RunTarget } from "../../../src/tools/executors";
import type { ChatStore } from "../storage/chat-store";
import type { Executor } from "./executor";
import type { JobMachine } from "./job-machine";
import { runOnSelf } from "./self-calls";

/** Production's most messages in one `sendBatch` (docs/architecture.md#platform-rules); local queues take any number. */
export const MAX_SEND_BATCH = 100;

export class Dispatcher {
  constructor(
    private readonly store: ChatStore,
    private readonly machine: JobMachine,
    private readonly executor: Executor,
  ) {}

  /**
   * The queue copies first, then the fast path; if the copies could not be sent, the watchdog
   * re-sends them and the consumer starts the jobs. The tools' targets are looked up once for the
   * batch, beside the send.
   */
  async start(jobIds: string[]): Promise<void> {
    const jobs = this.store.jobs.many(jobIds);
    // A built-in `wait` needs no call: it is claimed here and its durable timer ends it.
    const waits = jobs.filter(endsByTimer);
    for (const job of waits) this.machine.claim(job.job_id, 1, Date.now());
    if (waits.length) await this.store.timers.arm();
    const toRun = jobs.filter((j) => !endsByTimer(j));
    if (toRun.length === 0) return;
    const [sent, targets] = await Promise.all([this.send(toRun.map((j) => ({ job_id: j.job_id, attempt: 1 }))), this.#targets(toRun)]);
    if (sent) this.store.ctx.waitUntil(this.#fastStart(toRun, targets));
  }

  /** Sends the queue copies, at most 100 to a `sendBatch` (production refuses more); false when a send failed. */
  async send(jobs: { job_id: string; attempt: number }[]): Promise<boolean> {
    const address = this.store.address();
    const messages = jobs.map(({ job_id, attempt }) => ({ body: { ...address, job_id, attempt } satisfies JobMessage }));
    try {
      for (let i = 0; i < messages.length; i += MAX_SEND_BATCH) await this.store.env().JOBS.sendBatch(messages.slice(i, i + MAX_SEND_BATCH));
      return true;
    } catch (e) {
      console.warn("queue send failed; the watchdog will retry", (e as Error).message);
      return false;
    }
  }

  /** One call to this object per job; a job the queue copy reached first is a duplicate there. */
  async #fastStart(jobs: JobRow[], targets: Record<string, RunTarget>): Promise<void> {
    await runOnSelf(this.store, jobs, { targets, onFailure: "fast start failed; the queue copy will start the job" });
  }

  /** The batch's tool targets in one call; on failure each job looks its own up. */
  async #targets(jobs: JobRow[]): Promise<Record<string, RunTarget>> {
    const names = [...new Set(jobs.filter((j) => j.kind === "tool").map((j) => j.tool_name))];
    if (names.length === 0) return {};
    try {
      return await this.store.tenant().runTargets(names);
    } catch (e) {
      console.warn("tool targets lookup failed; each job looks its own up", (e as Error).message);
      return {};
    }
  }

  /** Stops what works on a job the chat ended itself: its call here, and a subordinate's child turn. */
  async stopWork(job: JobRow): Promise<void> {
    this.executor.abort(job.job_id);
    if (job.kind !== "subordinate" || !job.context_id) return;
    const { tenant, chat_id } = this.store.address();
    try {
      await this.store.chat(job.context_id).stopTurn({ tenant, chat_id: job.context_id, parent_job_id: job.job_id, parent_chat_id: chat_id });
    } catch (e) {
      console.warn("stopping a child's turn failed (best effort)", job.job_id, (e as Error).message);
    }
  }
}
