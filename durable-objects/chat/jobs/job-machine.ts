/**
 * The job state machine of one chat (docs/api.md#jobs-and-their-lifecycle): claim, completion, cancel,
 * deadline, the built-in `wait`. Synchronous on purpose: every transition is a
 * few SQL statements with no `await`, so no other request can interleave with
 * half a transition. The ChatDO re-arms its alarm after calling in.
 */
import { flowDeadlineError, waitingAt } from "../../../src/core/flow/job-flow";
import { cutStoredResult, rowRoom, STORED_ROW_BYTES } from "../../../src/core/storage/row-bounds";
import { contentBudget, storedContent } from "../../../src/core/tools/mcp-content";
import { CANCELLED_ERROR, deadlineError, endsByTimer, isTerminal, type JobRow } from "../../../src/core/jobs/job";
import type { ClaimResult, CompleteResult, JobOutcome } from "../../../src/core/jobs/messages";
import type { JobEvent } from "../storage/events";
import type { EndGuard, Finish } from "../storage/job-columns";
import type { JobStore } from "../storage/job-store";
import type { ChatStore } from "../storage/chat-store";
import { DISPATCH_WATCHDOG_MS } from "./batch-rows";
import type { Waiters } from "./waiters";

export const UNDELIVERABLE_ERROR = "Job could not be dispatched; start it again.";

/** A dead-lettered job is failed only after waiting this long: three dispatch watchdog periods. */
export const UNDELIVERABLE_AFTER_MS = 3 * DISPATCH_WATCHDOG_MS;

/** When a job began waiting for its start: its admission, or its release from the tier or queue that held it. */
const pendingSince = (job: JobRow) => Math.max(job.created_at, job.deadline_at - job.timeout_seconds * 1000);

export interface MachineHooks {
  /** A job was ended by the chat (cancel, deadline, undeliverable): its call (or child turn) should stop. */
  stopWork(job: JobRow): void;
  /** A job was claimed. `started`: its job.started event, kept on the job row (else it still needs recording). */
  claimed(job: JobRow, now: number, started?: JobEvent): void;
  /**
   * A job ended: retention may start counting, held jobs and waiting turns may move. `finished`: its
   * job.finished event, kept on the job row (else it still needs recording).
   */
  ended(job: JobRow, now: number, finished?: JobEvent): void;
}

const waitSeconds = (job: JobRow) => Number((JSON.parse(job.tool_args) as { seconds: number }).seconds);

export class JobMachine {
  private readonly jobs: JobStore;

  constructor(
    private readonly store: ChatStore,
    private readonly waiters: Waiters,
    /** What follows a transition in the rest of the chat (the composition root, `../chat`). */
    private readonly hooks: MachineHooks,
  ) {
    this.jobs = store.jobs;
  }

  /**
   * `jobId` is to run. Claiming a running job again returns the lease it has;
   * anything terminal is `finished`, so a late duplicate is dropped. The
   * built-in `wait` is finished by the `wait_done` timer.
   */
  claim(
    jobId: string,
    attempt: number,
    now: number,
    job: JobRow | undefined = this.jobs.get(jobId),
    runner: number | null = null,
  ): ClaimResult {
    if (!job || isTerminal(job.state)) return { status: "finished" };
    let claimed = job;
    if (job.state === "pending") {
      if (now >= job.deadline_at) {
        this.expire(job, now);
        return { status: "finished" };
      }
      const lease = crypto.randomUUID();
      const started = this.store.events.onJobRow(job.batch_id, "job.started");
      this.jobs.claim(jobId, attempt, lease, now, runner, started);
      claimed = { ...job, state: "running", attempt, lease, started_at: now, runner };
      this.hooks.claimed(job, now, started);
      if (endsByTimer(job)) this.store.timers.set("wait_done", jobId, now + Math.ceil(waitSeconds(job) * 1000));
    }
    if (endsByTimer(claimed)) return { status: "handled" };
    return {
      status: "claimed",
      lease: claimed.lease!,
      attempt: claimed.attempt,
      tool_name: claimed.tool_name,
      tool_args: claimed.tool_args,
      read_only: claimed.read_only === 1,
      deadline_at: claimed.deadline_at,
      kind: claimed.kind,
      context_id: claimed.context_id,
      spec: claimed.spec,
    };
  }

  /**
   * A job's outcome (its call here, or its child chat). Idempotent; anything at or after the deadline
   * is discarded. With its `batchId` (the caller has it), an outcome that needs no cutting ends the
   * job in one guarded update, with no read first: every call ends here.
   */
  complete(
    jobId: string,
    lease: string,
    outcome: JobOutcome,
    now: number,
    maxStoredBytes: number,
    batchId?: string,
  ): CompleteResult {
    if (
      batchId !== undefined &&
      this.#endAsItIs({ job_id: jobId, batch_id: batchId }, lease, outcome, now, maxStoredBytes)
    ) {
      return { status: "recorded" };
    }
    const job = this.jobs.toEnd(jobId);
    if (!job || isTerminal(job.state) || job.lease !== lease) return { status: "stale" };
    if (now >= job.deadline_at) {
      this.expire(this.jobs.get(jobId)!, now);
      return { status: "late" };
    }
    const room = rowRoom([job.tool_args, job.spec], maxStoredBytes);
    const f: Finish =
      outcome.state === "success"
        ? { state: "success", ...cutStoredResult(outcome.result, room), attempt: outcome.attempt, usage: outcome.usage }
        : // The log row shows it as `Error: <text>` beside the arguments: room for that prefix too.
          {
            state: outcome.state,
            error: cutStoredResult(outcome.error, Math.max(0, room - "Error: ".length)).result,
            error_type: outcome.error_type,
            attempt: outcome.attempt,
            usage: outcome.usage,
          };
    if (outcome.state !== "timeout" && outcome.content)
      f.content = storedContent(
        outcome.content,
        contentBudget([f.result ?? f.error ?? null, job.tool_args, job.spec], maxStoredBytes),
      );
    this.finish(job, f, now);
    return { status: "recorded" };
  }

  /**
   * Ends the job with the outcome as it is, when it fits the row uncut beside any arguments the
   * row may hold: false when it might not, or when the update's guard (lease, deadline, sizes)
   * refused it. The full path then decides, from the row, what the outcome is owed.
   */
  #endAsItIs(
    job: Pick<JobRow, "job_id" | "batch_id">,
    lease: string,
    outcome: JobOutcome,
    now: number,
    maxStoredBytes: number,
  ): boolean {
    if (outcome.state === "timeout" || outcome.content) return false;
    const text = outcome.state === "success" ? outcome.result : outcome.error;
    // An upper bound without encoding: a UTF-16 unit is at most 3 bytes of UTF-8. The log row shows an error
    // as `Error: <text>`.
    const needs = text.length * 3 + (outcome.state === "error" ? "Error: ".length : 0);
    if (needs > maxStoredBytes) return false;
    const f: Finish =
      outcome.state === "success"
        ? { state: "success", result: text, result_truncated: false, attempt: outcome.attempt, usage: outcome.usage }
        : {
            state: "error",
            error: text,
            error_type: outcome.error_type,
            attempt: outcome.attempt,
            usage: outcome.usage,
          };
    return this.finish(job, f, now, { lease, before: now, besideAtMost: STORED_ROW_BYTES - needs });
  }

  cancel(jobId: string, now: number): void {
    const job = this.jobs.get(jobId);
    if (job) this.#stop(job, { state: "cancelled", error: CANCELLED_ERROR, error_type: "cancelled" }, now);
  }

  /** The deadline passed: whatever notices first ends the job `timeout`. */
  expire(job: JobRow, now: number): void {
    const stillWaiting = job.state === "pending" && job.waiting_for === "flow" && job.flow !== null;
    const error = stillWaiting
      ? flowDeadlineError(job.timeout_seconds, waitingAt(job.flow!).rule)
      : deadlineError(job.timeout_seconds);
    this.#stop(job, { state: "timeout", error, error_type: "timeout" }, now);
  }

  finishWait(jobId: string, now: number): void {
    const job = this.jobs.get(jobId);
    if (job?.state === "running")
      this.finish(job, { state: "success", result: `Waited ${waitSeconds(job)} seconds.` }, now);
  }

  /**
   * The queue gave up delivering a job nobody claimed. The queue gives up after 5 retries 1 s apart,
   * so a chat unreachable for a few seconds (a deploy) would lose jobs its watchdog can still start:
   * a job is failed only once it has waited `UNDELIVERABLE_AFTER_MS`, after the watchdog's re-sends.
   */
  failUndeliverable(jobId: string, now: number): "failed" | "kept" | "ignored" {
    const job = this.jobs.get(jobId);
    if (job?.state !== "pending") return "ignored";
    if (now - pendingSince(job) < UNDELIVERABLE_AFTER_MS) {
      this.store.timers.setEarliest("dispatch", "", now + DISPATCH_WATCHDOG_MS);
      return "kept";
    }
    this.#stop(job, { state: "error", error: UNDELIVERABLE_ERROR, error_type: "unavailable" }, now);
    return "failed";
  }

  /**
   * Ends a job without its outcome. Its work is told to stop even when the job
   * is still pending: a subordinate's hand-over may be in flight.
   */
  #stop(job: JobRow, f: Finish, now: number): void {
    const wasActive = !isTerminal(job.state);
    this.finish(job, f, now);
    if (wasActive && !endsByTimer(job)) this.hooks.stopWork(job);
  }

  /**
   * Every move to a terminal state goes through here: row, timers, log row, hooks, waiters. False
   * when the row was not ended: it had ended already, or `guard` refused it.
   */
  finish(job: Pick<JobRow, "job_id" | "batch_id">, f: Finish, now: number, guard?: EndGuard): boolean {
    const event = this.store.events.onJobRow(job.batch_id, "job.finished");
    const finished = event && { ...event, cut: this.store.limits().max_result_chars };
    const ended = this.jobs.finish(job.job_id, f, now, finished, guard);
    if (!ended) {
      if (event) this.store.events.unused(event);
      return false;
    }
    // Of a chat's timers only a built-in wait's is its job's own.
    if (endsByTimer(ended)) this.store.timers.clear("wait_done", job.job_id);
    this.hooks.ended(ended, now, event);
    this.waiters.ended(job.job_id);
    return true;
  }
}
