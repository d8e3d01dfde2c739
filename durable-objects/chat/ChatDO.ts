/**
 * ChatDO: one per tenant + chat (`chat/<tenant>/<chat_id>`). It owns the
 * chat's jobs and is the only writer of their state: admission, claim,
 * completion, deadlines, cancellation, collection and purge all happen here, so
 * every rule is decided in one single-threaded place.
 *
 * This file is the RPC surface and the alarm; the rules live in plain modules
 * (`src/jobs/*`, `./admission`) and storage in `./job-store`, `./timers`.
 */
import { DurableObject } from "cloudflare:workers";
import { ApiError, refusal } from "../../src/http/errors";
import { extrasText } from "../../src/jobs/extras";
import { deadlineError, isTerminal, jobRecord, type JobRow, CANCELLED_ERROR } from "../../src/jobs/job";
import type {
  BatchAnswer,
  BatchRequest,
  ChatInfo,
  ChatLimits,
  ClaimResult,
  CompleteResult,
  JobMessage,
  JobOutcome,
} from "../../src/jobs/messages";
import {
  resultsPayload,
  startedPayload,
  type ResultsPayload,
  type Snapshot,
  type StartedPayload,
} from "../../src/jobs/payloads";
import { cutStoredResult } from "../../src/jobs/results";
import { runnerName, tenantName } from "../../src/names";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../src/util/limited";
import { admissionProblem, newJobRows, type AdmittedBatch } from "./admission";
import { Idempotency, type ReplayShape } from "./idempotency";
import { JobStore, type Finish } from "./job-store";
import { LogStore } from "./log-rows";
import { ensureSchema, hasSchema, readMeta, writeMeta } from "./schema";
import { Timers } from "./timers";
import { Waiters } from "./waiters";

/** A pending job not claimed this long after dispatch is sent again (lost or delayed message). */
export const DISPATCH_WATCHDOG_MS = 15_000;
/** Idempotency records outlive their jobs for at least this long (SPEC §3.6). */
const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

type Shape = ReplayShape;

export class ChatDO extends DurableObject<Env> {
  readonly #sql = this.ctx.storage.sql;
  readonly #jobs = new JobStore(this.#sql);
  readonly #log = new LogStore(this.#sql);
  readonly #timers = new Timers(this.#sql, this.ctx.storage);
  readonly #idempotency = new Idempotency(this.#sql);
  readonly #waiters = new Waiters();

  // ---- the `parallel` route --------------------------------------------------

  async startBatch(req: BatchRequest): Promise<BatchAnswer> {
    try {
      return await this.#startBatch(req);
    } catch (e) {
      if (e instanceof ApiError) return refusal(e);
      throw e;
    }
  }

  async #startBatch(req: BatchRequest): Promise<BatchAnswer> {
    const { command } = req;
    const now = Date.now();
    const exists = hasSchema(this.#sql);

    if (req.idempotency && exists) {
      const replay = this.#idempotency.find(req.route, req.idempotency);
      if (replay) return this.#respond(replay.job_ids, replay.shape, req.limits);
    }

    if (command.action === "cancel") {
      this.#requireKnown(command.job_ids, exists);
      for (const id of command.job_ids) this.#cancel(id, now);
      await this.#timers.arm();
      return this.#respond(command.job_ids, { wait: false, wait_seconds: 0, started_only: false, collect: true }, req.limits);
    }

    this.#requireKnown(command.job_ids, exists);
    const shape: Shape = {
      wait: command.wait,
      wait_seconds: command.wait_seconds,
      started_only: !command.wait && command.job_ids.length === 0,
      collect: true,
    };
    if (command.jobs.length === 0) return this.#respond(command.job_ids, shape, req.limits);

    ensureSchema(this.#sql);
    const problem = admissionProblem(command.jobs.length, this.#jobs.activeCount(), req.limits);
    if (problem) throw problem;

    const batch = newJobRows(req, now);
    const isNewChat = this.ctx.storage.transactionSync(() => this.#admit(req, batch, shape, now));
    const jobIds = batch.jobs.map((j) => j.job_id);
    await this.#dispatch(jobIds, 1);
    this.ctx.waitUntil(this.#fastStart(jobIds));
    // Awaited (once per chat) so the index never lags a DELETE that follows at once.
    if (isNewChat) await this.#registerChat(req.tenant, req.chat_id, now);
    await this.#timers.arm();
    return this.#respond([...command.job_ids, ...batch.jobs.map((j) => j.job_id)], shape, req.limits);
  }

  /** Inserts the batch; returns whether this created the chat. */
  #admit(req: BatchRequest, batch: AdmittedBatch, shape: Shape, now: number): boolean {
    const isNewChat = readMeta(this.#sql, "chat_id") === undefined;
    writeMeta(this.#sql, "tenant", req.tenant);
    writeMeta(this.#sql, "chat_id", req.chat_id);
    writeMeta(this.#sql, "limits", JSON.stringify(req.limits));
    if (isNewChat) writeMeta(this.#sql, "created_at", String(now));
    for (const job of batch.jobs) {
      this.#jobs.insert(job);
      this.#log.add(job.log_id, job, now);
      this.#timers.set("deadline", job.job_id, job.deadline_at);
      this.#timers.set("dispatch", job.job_id, now + DISPATCH_WATCHDOG_MS);
    }
    if (req.idempotency) {
      const ids = [...req.command.job_ids, ...batch.jobs.map((j) => j.job_id)];
      this.#idempotency.record(req.route, req.idempotency, { job_ids: ids, shape }, now);
      this.#schedulePurge(now);
    }
    return isNewChat;
  }

  /** Unknown ids are reported all together, before anything changes (SPEC §3.2). */
  #requireKnown(ids: string[], exists: boolean): void {
    const known = new Set(exists ? this.#jobs.many(ids).map((j) => j.job_id) : []);
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length) {
      throw new ApiError(400, "unknown_job_ids", `Unknown parallel job id(s): ${unknown.join(", ")}`, {
        job_ids: unknown,
      });
    }
  }

  /** Waits (if asked) and builds the payload; a response that carries a final snapshot collects it. */
  async #respond(ids: string[], shape: Shape, limits: ChatLimits): Promise<BatchAnswer> {
    let waitTimedOut = false;
    if (shape.wait) {
      const done = () => this.#jobs.states(ids).every(isTerminal);
      waitTimedOut = !(await this.#waiters.until(done, shape.wait_seconds * 1000));
    }
    const rows = this.#jobs.many(ids);
    const now = Date.now();
    const view = { now, maxResultChars: limits.max_result_chars };
    let payload: ResultsPayload | StartedPayload;
    if (shape.started_only && !rows.some((r) => isTerminal(r.state))) payload = startedPayload(rows, view);
    else {
      payload = resultsPayload(rows, { ...view, waitTimedOut });
      if (shape.collect) this.#jobs.markCollected(rows, now);
    }
    return { ok: true, payload };
  }

  // ---- dispatch, claim, completion ------------------------------------------

  async #dispatch(jobIds: string[], attempt: number): Promise<void> {
    const tenant = readMeta(this.#sql, "tenant")!;
    const chat_id = readMeta(this.#sql, "chat_id")!;
    const messages = jobIds.map((job_id) => ({ body: { tenant, chat_id, job_id, attempt } satisfies JobMessage }));
    try {
      await this.env.JOBS.sendBatch(messages);
      this.#jobs.markDispatched(jobIds, Date.now());
    } catch (e) {
      // The jobs are stored; the dispatch watchdog sends them again.
      console.warn("queue send failed; the watchdog will retry", (e as Error).message);
    }
  }

  /**
   * The fast path: with the queue copy sent, hand the new jobs to their runners
   * directly instead of waiting for the queue to deliver (tens of ms per hop).
   * The queue copy then arrives as a duplicate and is absorbed by the runner's
   * record or the claim, so a failure here costs only the shortcut.
   */
  async #fastStart(jobIds: string[]): Promise<void> {
    const tenant = readMeta(this.#sql, "tenant")!;
    const chat_id = readMeta(this.#sql, "chat_id")!;
    await forEachLimited(jobIds, MAX_OPEN_CONNECTIONS, async (job_id) => {
      const job = this.#jobs.get(job_id);
      if (job?.state !== "pending") return;
      try {
        if (job.tool_name === "wait") await this.claimJob(job_id, 1);
        else await this.env.RUNNER.getByName(runnerName(tenant, chat_id, job_id)).start({ tenant, chat_id, job_id, attempt: 1 });
      } catch (e) {
        console.warn("fast start failed; the queue copy will start the job", job_id, (e as Error).message);
      }
    });
  }

  /**
   * A runner asks to run `job_id`. Claiming twice with the same attempt returns
   * the same lease (a redelivered message reaches the same runner, which
   * ignores it); anything terminal is `finished`, so a late duplicate is dropped.
   */
  async claimJob(jobId: string, attempt: number): Promise<ClaimResult> {
    if (!hasSchema(this.#sql)) return { status: "finished" };
    const now = Date.now();
    const job = this.#jobs.get(jobId);
    if (!job || isTerminal(job.state)) return { status: "finished" };
    if (job.state === "pending") {
      if (now >= job.deadline_at) {
        this.#finish(job, { state: "timeout", error: deadlineError(job.timeout_seconds) }, now);
        await this.#timers.arm();
        return { status: "finished" };
      }
      this.#jobs.claim(jobId, attempt, crypto.randomUUID(), now);
      this.#timers.clear("dispatch", jobId);
      if (job.tool_name === "wait") {
        const seconds = Number((JSON.parse(job.tool_args) as { seconds: number }).seconds);
        this.#timers.set("wait_done", jobId, now + Math.ceil(seconds * 1000));
        await this.#timers.arm();
        return { status: "handled" };
      }
      await this.#timers.arm();
    }
    const claimed = this.#jobs.get(jobId)!;
    if (claimed.tool_name === "wait") return { status: "handled" };
    return {
      status: "claimed",
      lease: claimed.lease!,
      attempt: claimed.attempt,
      tool_name: claimed.tool_name,
      tool_args: claimed.tool_args,
      read_only: claimed.read_only === 1,
      deadline_at: claimed.deadline_at,
    };
  }

  /** A runner reports its outcome. Idempotent; anything at or after the deadline is discarded. */
  async completeJob(jobId: string, lease: string, outcome: JobOutcome): Promise<CompleteResult> {
    if (!hasSchema(this.#sql)) return { status: "stale" };
    const job = this.#jobs.get(jobId);
    if (!job || isTerminal(job.state) || job.lease !== lease) return { status: "stale" };
    const now = Date.now();
    if (now >= job.deadline_at) {
      this.#finish(job, { state: "timeout", error: deadlineError(job.timeout_seconds) }, now);
      await this.#timers.arm();
      return { status: "late" };
    }
    const limits = this.#limits();
    const finish: Finish =
      outcome.state === "success"
        ? { state: "success", ...cutStoredResult(outcome.result, limits.max_stored_result_bytes), attempt: outcome.attempt }
        : { state: "error", error: outcome.error, attempt: outcome.attempt };
    this.#finish(job, finish, now);
    await this.#timers.arm();
    return { status: "recorded" };
  }

  /** The dead-letter consumer: the queue gave up delivering this job. */
  async failDispatch(jobId: string): Promise<void> {
    if (!hasSchema(this.#sql)) return;
    const job = this.#jobs.get(jobId);
    if (!job || job.state !== "pending") return;
    this.#finish(job, { state: "error", error: "Job could not be dispatched to a runner; start it again." }, Date.now());
    await this.#timers.arm();
  }

  /** Every move to a terminal state goes through here: row, timers, log row, waiters, purge. */
  #finish(job: JobRow, f: Finish, now: number): void {
    if (!this.#jobs.finish(job.job_id, f, now)) return;
    this.#timers.clear("deadline", job.job_id);
    this.#timers.clear("dispatch", job.job_id);
    this.#timers.clear("wait_done", job.job_id);
    this.#log.complete(this.#jobs.get(job.job_id)!, now);
    this.#schedulePurge(now);
    const stopped = f.state === "cancelled" || f.state === "timeout";
    if (stopped && job.state === "running" && job.tool_name !== "wait") {
      this.ctx.waitUntil(this.#abortRunner(job.job_id));
    }
    this.#waiters.notify();
  }

  #cancel(jobId: string, now: number): void {
    const job = this.#jobs.get(jobId);
    if (job && !isTerminal(job.state)) this.#finish(job, { state: "cancelled", error: CANCELLED_ERROR }, now);
  }

  async #abortRunner(jobId: string): Promise<void> {
    const name = runnerName(readMeta(this.#sql, "tenant")!, readMeta(this.#sql, "chat_id")!, jobId);
    try {
      await this.env.RUNNER.getByName(name).abort();
    } catch (e) {
      console.warn("runner abort failed (best effort)", (e as Error).message);
    }
  }

  // ---- the alarm: deadlines, finished waits, the dispatch watchdog, purge ----

  override async alarm(): Promise<void> {
    if (!hasSchema(this.#sql)) return;
    const now = Date.now();
    for (const timer of this.#timers.due(now)) {
      const job = timer.kind === "purge" ? undefined : this.#jobs.get(timer.ref);
      switch (timer.kind) {
        case "deadline":
          if (job) this.#finish(job, { state: "timeout", error: deadlineError(job.timeout_seconds) }, now);
          break;
        case "wait_done":
          if (job?.state === "running") {
            const seconds = (JSON.parse(job.tool_args) as { seconds: number }).seconds;
            this.#finish(job, { state: "success", result: `Waited ${seconds} seconds.` }, now);
          }
          break;
        case "dispatch":
          if (job?.state === "pending") {
            this.#timers.set("dispatch", job.job_id, Math.min(now + DISPATCH_WATCHDOG_MS, job.deadline_at));
            await this.#dispatch([job.job_id], job.attempt + 1);
          }
          break;
        case "purge":
          if ((await this.#purge(now)) === "emptied") return;
          break;
      }
      this.#timers.done(timer);
    }
    await this.#timers.arm();
  }

  #limits(): ChatLimits {
    return JSON.parse(readMeta(this.#sql, "limits")!) as ChatLimits;
  }

  #schedulePurge(now: number): void {
    const retentionMs = this.#limits().retention_seconds * 1000;
    const candidates = [
      (this.#jobs.oldestFinished() ?? Infinity) + retentionMs,
      (this.#idempotency.oldestAfter(now - IDEMPOTENCY_TTL_MS) ?? Infinity) + IDEMPOTENCY_TTL_MS,
    ];
    const at = Math.min(...candidates);
    if (Number.isFinite(at)) this.#timers.set("purge", "", Math.max(at, now));
  }

  /** Drops expired jobs, their log rows and idempotency records; an empty chat is deleted whole. */
  async #purge(now: number): Promise<"emptied" | "kept"> {
    const retentionMs = this.#limits().retention_seconds * 1000;
    this.#jobs.delete(this.#jobs.finishedBefore(now - retentionMs));
    this.#idempotency.purge(now - IDEMPOTENCY_TTL_MS, (ids) => this.#jobs.many(ids).length === 0);
    if (this.#jobs.count() === 0 && this.#idempotency.count() === 0) {
      await this.#forget();
      return "emptied";
    }
    this.#schedulePurge(now);
    return "kept";
  }

  // ---- reads and deletion ----------------------------------------------------

  listJobs(limits: ChatLimits): { jobs: Snapshot[] } | null {
    if (!hasSchema(this.#sql)) return null;
    const now = Date.now();
    return {
      jobs: resultsPayload(this.#jobs.visible(), { now, maxResultChars: limits.max_result_chars }).jobs,
    };
  }

  getJob(jobId: string) {
    if (!hasSchema(this.#sql)) return null;
    const job = this.#jobs.get(jobId);
    return job ? { record: jobRecord(job) } : { record: null };
  }

  extras(): { text: string | null } | null {
    if (!hasSchema(this.#sql)) return null;
    return { text: extrasText(this.#jobs.visible(), Date.now()) };
  }

  logRows() {
    if (!hasSchema(this.#sql)) return null;
    return { rows: this.#log.all() };
  }

  info(): ChatInfo | null {
    if (!hasSchema(this.#sql)) return null;
    return {
      chat_id: readMeta(this.#sql, "chat_id")!,
      parent_chat_id: null,
      level: 0,
      name: readMeta(this.#sql, "chat_id")!,
      children: [],
      running_jobs: this.#jobs.activeCount(),
    };
  }

  /** Cancels everything, then deletes the chat's state. */
  async deleteChat(): Promise<boolean> {
    if (!hasSchema(this.#sql)) return false;
    const now = Date.now();
    for (const job of this.#jobs.active()) this.#cancel(job.job_id, now);
    await this.#forget();
    return true;
  }

  async #forget(): Promise<void> {
    const tenant = readMeta(this.#sql, "tenant");
    const chatId = readMeta(this.#sql, "chat_id");
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    if (tenant && chatId) await this.env.TENANT.getByName(tenantName(tenant)).forgetChat(chatId);
  }

  async #registerChat(tenant: string, chatId: string, now: number): Promise<void> {
    try {
      await this.env.TENANT.getByName(tenantName(tenant)).registerChat(chatId, now);
    } catch (e) {
      console.warn("chat index update failed", (e as Error).message);
    }
  }
}
