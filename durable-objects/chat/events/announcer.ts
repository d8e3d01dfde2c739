/**
 * What a chat announces, and when (docs/api.md#hand-back-and-im-delivery, docs/api.md#events-and-webhooks):
 * each job's start and end,
 * a subordinate's start and hand-back, a request's batch once all its jobs
 * are terminal (with the payload an await would return, so a webhook-driven
 * bot can hand it straight to its model), `chat.idle` once the chat has no
 * active job left, and the chat's creation and renames. Called inside the
 * transaction of the change it announces. A running MCP tool's progress goes
 * to the live streams alone.
 */
import type { SpendAlert } from "../../../src/core/budgets/spend";
import { batchKeeps, wholeBatch } from "../storage/rerun-batches";
import { batchView } from "../../../src/core/events/batch-view";
import type { EventType } from "../../../src/core/events/envelope";
import {
  approvalDecidedData,
  approvalRequestedData,
  callId,
  jobFinishedData,
  jobStartedData,
  batchEchoOf,
} from "../../../src/core/events/job-events";
import type { JobApproval } from "../../../src/core/approvals/approval";
import type { Reached } from "../../../src/core/budgets/budget";
import { jobUsage, shownUsage } from "../../../src/core/usage/usage";
import type { JobRow } from "../../../src/core/jobs/job";
import { snapshot } from "../../../src/core/jobs/payloads";
import type { Progress } from "../../../src/core/jobs/progress";
import { subagentSummary, telegramChatId } from "../../../src/core/notify/telegram";
import type { ChatStore } from "../storage/chat-store";
import type { ActiveCounts } from "../storage/job-columns";
import type { JobEvent, JobEventType } from "../storage/events";
import type { Outbox } from "./outbox";
import type { ChatStream } from "./chat-stream";
import type { SubordinatePlan } from "../storage/children";

export class Announcer {
  constructor(
    private readonly store: ChatStore,
    private readonly outbox: Outbox,
    private readonly stream: ChatStream,
  ) {}

  /** `kept`: a job event already kept on its job row, which only needs publishing. */
  #record(
    type: EventType,
    data: Record<string, unknown>,
    now: number,
    batchId: string | null = null,
    kept?: JobEvent,
  ): number | undefined {
    try {
      if (kept) {
        this.stream.publish(this.store.events.envelopeOnJob(kept, type as JobEventType, data, now), now);
        return kept.seq;
      }
      const { envelope, deliver, seq } = this.store.events.record(type, data, now, batchId);
      if (deliver) this.outbox.wake(now);
      this.stream.publish(envelope, now);
      return seq;
    } catch (e) {
      // The change it announces has happened already: never let the announcement undo the rest of it.
      console.error("could not record an event", type, e);
      return undefined;
    }
  }

  chatCreated(name: string, level: number, now: number): void {
    this.#record("chat.created", { name, level }, now);
  }

  chatUpdated(name: string, now: number): void {
    this.#record("chat.updated", { name }, now);
  }

  /** `started`: the event's seq and id when it is kept on the job row. */
  jobStarted(job: JobRow, now: number, started?: JobEvent): void {
    this.#record("job.started", jobStartedData(job), now, job.batch_id, started);
    if (job.kind === "subordinate")
      this.#record("subagent.started", { ...subagent(job), ...batchEchoOf(job) }, now, job.batch_id);
  }

  /** A call waits for a person's decision (docs/api.md#approvals): the bot asks them. */
  approvalRequested(job: JobRow, approval: JobApproval, now: number): void {
    const { chat_id } = this.store.address();
    const root_chat_id = this.store.meta("root_chat_id") ?? chat_id;
    this.#record(
      "job.approval_requested",
      approvalRequestedData(job, { chat_id, root_chat_id }, approval),
      now,
      job.batch_id,
    );
  }

  /** The decision on a call's approval (or its expiry). */
  approvalDecided(job: JobRow, approval: JobApproval, now: number): void {
    this.#record("job.approval_decided", approvalDecidedData(job, approval), now, job.batch_id);
  }

  /** The batch's budget was reached (docs/api.md#budgets): said once, by the top-level chat. */
  budgetExhausted(batchId: string, batch: Pick<JobRow, "metadata" | "trace">, over: Reached, now: number): void {
    const inFlight = over.in_flight === undefined ? {} : { in_flight: over.in_flight };
    this.#record(
      "batch.budget_exhausted",
      {
        batch_id: batchId,
        field: over.field,
        used: over.used,
        limit: over.limit,
        ...inFlight,
        ...batchEchoOf(batch),
      },
      now,
      batchId,
    );
  }

  /** The tenant's spending crossed a threshold through this chat's work (docs/api.md#spending-limits). */
  spendAlert(alert: SpendAlert, key: string, now: number): void {
    // Sent again when the spend object did not hear this chat took it: recorded once all the same.
    const sent = `spend_alert:${key}`;
    if (this.store.meta(sent)) return;
    this.store.transaction(() => {
      // The keys of earlier periods are no longer asked for: only this period's are kept.
      const period = key.slice(0, key.indexOf(" "));
      this.store.sql.exec(
        `DELETE FROM meta WHERE key LIKE 'spend_alert:%' AND key NOT LIKE ?`,
        `spend_alert:${period} %`,
      );
      this.store.setMeta(sent, "1");
      this.#record("tenant.spend_alert", { ...alert }, now);
    });
  }

  /** A running MCP tool's progress, to the live streams only (see `./job-progress` for why). */
  jobProgress(job: JobRow, progress: Progress, now: number): void {
    try {
      const data = {
        job_id: job.job_id,
        batch_id: job.batch_id,
        tool_name: job.tool_name,
        progress,
        ...batchEchoOf(job),
      };
      this.stream.publishLive(this.store.events.live("job.progress", data, now));
    } catch (e) {
      console.error("could not announce progress", job.job_id, e);
    }
  }

  /**
   * A batch started with `?notify=` gets a short Telegram message per subordinate that ends
   * (docs/api.md#hand-back-and-im-delivery).
   */
  #notify(job: JobRow, now: number, afterSeq: number | undefined): void {
    const chatId = telegramChatId(this.store.batches.notify(job.batch_id));
    if (chatId === undefined) return;
    const text = subagentSummary(
      subagent(job).label,
      job.state === "success",
      job.state === "success" ? job.result : job.error,
    );
    this.store.notifications.add(chatId, text, now, afterSeq);
    this.outbox.wake(now);
  }

  /**
   * `active`: what is still active now; `finished`: the event's seq and id when it is kept on the job row.
   * Returns the batch's rows when this was its last active job (they are read once, for `batch.finished`).
   */
  jobEnded(job: JobRow, now: number, active: ActiveCounts, finished?: JobEvent): JobRow[] | undefined {
    const view = { now, maxResultChars: this.store.limits().max_result_chars };
    this.#record("job.finished", jobFinishedData(job, view.maxResultChars), now, job.batch_id, finished);
    if (job.kind === "subordinate") {
      // The result as a response would show it: cut at max_result_chars (the job keeps all of it).
      const shown = snapshot(job, { ...view, includeResult: true });
      const ending =
        job.state === "success"
          ? { result: shown.result ?? null, ...(shown.result_truncated ? { result_truncated: true } : {}) }
          : { error: job.error };
      const usage = job.usage ? shownUsage(jobUsage(job)) : null;
      const seq = this.#record(
        "subagent.finish",
        { ...subagent(job), status: job.state, ...ending, usage, ...batchEchoOf(job) },
        now,
        job.batch_id,
      );
      this.#notify(job, now, seq);
    }
    // The batch's rows (results and all) are read once, when its last job ends.
    let batch: JobRow[] | undefined;
    if (active.batch === 0) {
      batch = this.store.jobs.byBatch(job.batch_id);
      // A rerun's results are the whole batch's, carried-over jobs included; its usage is its own work.
      const whole = wholeBatch(this.store, job.batch_id, batch);
      this.#record(
        "batch.finished",
        { batch_id: job.batch_id, ...batchView(batch, whole, batchKeeps(this.store, job.batch_id, batch), view) },
        now,
        job.batch_id,
      );
    }
    if (active.chat === 0) this.#record("chat.idle", {}, now);
    return batch;
  }
}

/** What subagent events say about a subordinate job. */
function subagent(job: JobRow) {
  const plan = job.spec ? (JSON.parse(job.spec) as SubordinatePlan) : undefined;
  return {
    job_id: job.job_id,
    ...callId(job),
    context_id: job.context_id,
    agent: plan?.profile ?? "default",
    label: plan?.request.label ?? "",
  };
}
