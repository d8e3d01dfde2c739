/**
 * The job state machine of one chat (SPEC §3.3): claim, completion, cancel,
 * deadline, the built-in `wait`. Synchronous on purpose: every transition is a
 * few SQL statements with no `await`, so no other request can interleave with
 * half a transition. The ChatDO re-arms its alarm after calling in.
 */
import { cutStoredResult } from "../../src/jobs/results";
import { CANCELLED_ERROR, deadlineError, isTerminal, type JobRow } from "../../src/jobs/job";
import type { ClaimResult, CompleteResult, JobOutcome } from "../../src/jobs/messages";
import type { Finish, JobStore } from "./job-store";
import type { LogStore } from "./log-rows";
import type { Timers } from "./timers";
import type { Waiters } from "./waiters";

export const UNDELIVERABLE_ERROR = "Job could not be dispatched to a runner; start it again.";

export interface MachineHooks {
  /** A job was ended without its runner (cancel, deadline, undeliverable): the runner (or child) should stop. */
  stopRunner(job: JobRow): void;
  /** A job was claimed. */
  claimed(job: JobRow, now: number): void;
  /** A job ended: retention may start counting, held jobs and waiting turns may move. */
  ended(job: JobRow, now: number): void;
}

const waitSeconds = (job: JobRow) => Number((JSON.parse(job.tool_args) as { seconds: number }).seconds);

export class JobMachine {
  constructor(
    private readonly jobs: JobStore,
    private readonly log: LogStore,
    private readonly timers: Timers,
    private readonly waiters: Waiters,
    private readonly hooks: MachineHooks,
  ) {}

  /**
   * A runner asks to run `jobId`. Claiming again with the same attempt returns
   * the same lease (a redelivered message reaches the same runner, which
   * ignores it); anything terminal is `finished`, so a late duplicate is dropped.
   * The built-in `wait` is claimed here and finished by the `wait_done` timer.
   * `keep`: the claim travels to a runner that has yet to confirm it, so the
   * dispatch watchdog set at admission stays until it does.
   */
  claim(jobId: string, attempt: number, now: number, watchdog: "clear" | "keep" = "clear"): ClaimResult {
    const job = this.jobs.get(jobId);
    if (!job || isTerminal(job.state)) return { status: "finished" };
    if (job.state === "pending") {
      if (now >= job.deadline_at) {
        this.expire(job, now);
        return { status: "finished" };
      }
      this.jobs.claim(jobId, attempt, crypto.randomUUID(), now);
      if (watchdog === "clear" || job.tool_name === "wait") this.timers.clear("dispatch", jobId);
      this.hooks.claimed(job, now);
      if (job.tool_name === "wait") this.timers.set("wait_done", jobId, now + Math.ceil(waitSeconds(job) * 1000));
    }
    const claimed = this.jobs.get(jobId)!;
    if (claimed.tool_name === "wait") return { status: "handled" };
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

  /** A runner's report. Idempotent; anything at or after the deadline is discarded. */
  complete(jobId: string, lease: string, outcome: JobOutcome, now: number, maxStoredBytes: number): CompleteResult {
    const job = this.jobs.get(jobId);
    if (!job || isTerminal(job.state) || job.lease !== lease) return { status: "stale" };
    if (now >= job.deadline_at) {
      this.expire(job, now);
      return { status: "late" };
    }
    this.finish(
      job,
      outcome.state === "success"
        ? { state: "success", ...cutStoredResult(outcome.result, maxStoredBytes), attempt: outcome.attempt, usage: outcome.usage }
        : { state: outcome.state, error: outcome.error, attempt: outcome.attempt, usage: outcome.usage },
      now,
    );
    return { status: "recorded" };
  }

  cancel(jobId: string, now: number): void {
    const job = this.jobs.get(jobId);
    if (job) this.#stop(job, { state: "cancelled", error: CANCELLED_ERROR }, now);
  }

  /** The deadline passed: whatever notices first ends the job `timeout`. */
  expire(job: JobRow, now: number): void {
    this.#stop(job, { state: "timeout", error: deadlineError(job.timeout_seconds) }, now);
  }

  finishWait(jobId: string, now: number): void {
    const job = this.jobs.get(jobId);
    if (job?.state === "running") this.finish(job, { state: "success", result: `Waited ${waitSeconds(job)} seconds.` }, now);
  }

  /** The queue gave up delivering a job nobody claimed. */
  failUndeliverable(jobId: string, now: number): void {
    const job = this.jobs.get(jobId);
    if (job?.state === "pending") this.#stop(job, { state: "error", error: UNDELIVERABLE_ERROR }, now);
  }

  /**
   * Ends a job its runner did not report on. The runner is told to stop even
   * when the job is still pending: its claim may be in flight, or it may hold a
   * record from a claim that never completed.
   */
  #stop(job: JobRow, f: Finish, now: number): void {
    const wasActive = !isTerminal(job.state);
    this.finish(job, f, now);
    if (wasActive && job.tool_name !== "wait") this.hooks.stopRunner(job);
  }

  /** Every move to a terminal state goes through here: row, timers, log row, runner, waiters. */
  finish(job: JobRow, f: Finish, now: number): void {
    if (!this.jobs.finish(job.job_id, f, now)) return;
    this.timers.clearRef(job.job_id);
    const ended = this.jobs.get(job.job_id)!;
    this.log.complete(ended, now);
    this.hooks.ended(ended, now);
    this.waiters.notify();
  }
}
