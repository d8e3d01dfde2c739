/**
 * RunnerDO: a pool of runners per tenant (`runner/<tenant>/<slot>`, see
 * `runnerName`), each holding the jobs that hash to it, one record per job.
 * The queue consumer (or the ChatDO's fast path) hands it a job and moves on,
 * so a slow tool never holds up a consumer batch and with it every other chat
 * (SPEC §4: one consumer batch in flight per queue under `wrangler dev`).
 *
 * For each job it claims from the ChatDO, performs the call in the invocation
 * that handed the job over (compatibility_date ≥ 2026-10-01 keeps it alive
 * while the fetch is pending), reports the outcome and deletes the job's
 * record. One heartbeat alarm per runner notices records no live execution
 * holds (restart, deploy, failed RPC) and recovers each by the rules in
 * `./run-record`.
 */
import { DurableObject } from "cloudflare:workers";
import { egressProblem } from "../../src/config/egress";
import { OUTCOME_UNKNOWN_ERROR } from "../../src/jobs/job";
import type { ClaimResult, JobMessage, JobOutcome } from "../../src/jobs/messages";
import { chatName, tenantName } from "../../src/names";
import { callHttpRequest, callTenantTool, type AttemptContext, type RunTarget } from "../../src/tools/executors";
import type { AttemptResult } from "../../src/tools/http-call";
import { backoffMs, isRetryable } from "../../src/tools/retry";
import { boundedSignal, sleep } from "../../src/util/abort";
import type { SubordinatePlan } from "../chat/subordinates";
import { RecentIds } from "./recent-ids";
import { recordKey, RECORD_PREFIX, recoveryStep, type RunRecord } from "./run-record";

/** How often a runner holding jobs checks that each still has a live execution. */
export const RUNNER_HEARTBEAT_MS = 10_000;

/** Where a runner from before the pool kept its one record. */
const LEGACY_RECORD_KEY = "run";

/** Enough to cover the queue copies still in flight for jobs the fast path already finished. */
const RECENT_JOBS = 2_000;

export class RunnerDO extends DurableObject<Env> {
  /** What this instance is doing for each job right now; lost with the instance, which is the point. */
  readonly #busy = new Map<string, "claiming" | AbortController>();
  readonly #recent = new RecentIds(RECENT_JOBS);

  #load(jobId: string): RunRecord | undefined {
    return this.ctx.storage.kv.get<RunRecord>(recordKey(jobId));
  }

  #save(record: RunRecord): void {
    this.ctx.storage.kv.put(recordKey(record.message.job_id), record);
  }

  #clear(jobId: string): void {
    this.ctx.storage.kv.delete(recordKey(jobId));
    this.#recent.add(jobId);
  }

  /** Arms the heartbeat unless one is already due: moving it on every start would postpone recovery forever. */
  async #heartbeat(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + RUNNER_HEARTBEAT_MS);
  }

  /**
   * Hands a job to this runner. Returns once it is claimed; the call runs on in this object.
   * The chat's fast path passes the claim it already made; a queue delivery claims here.
   */
  async start(message: JobMessage, claimed?: ClaimResult): Promise<"started" | "duplicate" | ClaimResult["status"]> {
    const jobId = message.job_id;
    if (this.#recent.has(jobId)) return "duplicate";
    const existing = this.#load(jobId);
    // A claim that never completed (its instance died mid-RPC) is driven again; anything else is a duplicate.
    if (existing && (existing.claim || this.#busy.has(jobId))) {
      // A record no execution here holds (its instance died) must have a heartbeat to recover it.
      if (!this.#busy.has(jobId)) await this.#heartbeat();
      return "duplicate";
    }
    if (!existing && claimed?.status === "claimed") {
      const record: RunRecord = { message, claim: claimed, attempt: claimed.attempt, sent: 0 };
      this.#save(record);
      this.#execute(record);
      await this.#heartbeat();
      return "started";
    }
    // Written before the first await, so a concurrent duplicate delivery sees it and backs off.
    if (!existing) this.#save({ message, claim: null, attempt: message.attempt, sent: 0 });
    const armed = this.#heartbeat();
    const started = this.#claimAndRun(existing?.message ?? message);
    await armed;
    return started;
  }

  async #claimAndRun(message: JobMessage): Promise<"started" | ClaimResult["status"]> {
    const jobId = message.job_id;
    this.#busy.set(jobId, "claiming");
    let claim: ClaimResult;
    try {
      claim = await this.#chat(message).claimJob(jobId, message.attempt);
    } finally {
      if (this.#busy.get(jobId) === "claiming") this.#busy.delete(jobId);
    }
    if (!this.#load(jobId)) return "finished"; // cancelled or timed out while the claim was in flight
    if (claim.status !== "claimed") {
      this.#clear(jobId);
      return claim.status;
    }
    const record: RunRecord = { message, claim, attempt: claim.attempt, sent: 0 };
    this.#save(record);
    this.#execute(record);
    return "started";
  }

  /** Cancellation or deadline, from the ChatDO: stop the call; nothing is reported. */
  async abort(jobId: string): Promise<void> {
    const busy = this.#busy.get(jobId);
    if (busy instanceof AbortController) busy.abort(new DOMException("job stopped", "AbortError"));
    this.#busy.delete(jobId);
    this.#clear(jobId);
  }

  override async alarm(): Promise<void> {
    this.#adoptLegacyRecord();
    const records = [...this.ctx.storage.kv.list<RunRecord>({ prefix: RECORD_PREFIX })].map(([, record]) => record);
    // Each job recovers in an invocation of its own (a call to this same object), so a large recovery
    // stays within production's 6 open connections per invocation and no queued call eats its deadline.
    const self = this.env.RUNNER.get(this.ctx.id);
    await Promise.all(records.filter((r) => !this.#busy.has(r.message.job_id)).map((r) => self.recoverJob(r.message.job_id)));
    if ([...this.ctx.storage.kv.list({ prefix: RECORD_PREFIX, limit: 1 })].length > 0) {
      await this.ctx.storage.setAlarm(Date.now() + RUNNER_HEARTBEAT_MS);
    }
  }

  /** The heartbeat's hand-off of one record: carried on here unless an execution already holds it. */
  async recoverJob(jobId: string): Promise<void> {
    const record = this.#load(jobId);
    if (record && !this.#busy.has(jobId)) await this.#recover(record);
  }

  /**
   * Runners were once one object per job (`job/<tenant>/<chat>/<job>`) holding a single record
   * under `run`. Such an object still wakes on its heartbeat after an upgrade: its record moves to
   * the per-job key and recovers like any other, in the object that holds it.
   */
  #adoptLegacyRecord(): void {
    const legacy = this.ctx.storage.kv.get<RunRecord>(LEGACY_RECORD_KEY);
    if (!legacy) return;
    this.#save(legacy);
    this.ctx.storage.kv.delete(LEGACY_RECORD_KEY);
  }

  /** A record no live execution holds: carry it on by the attempt rules. */
  async #recover(record: RunRecord): Promise<void> {
    try {
      const recovery = recoveryStep(record, Date.now());
      switch (recovery.step) {
        case "report":
          return await this.#report(record, record.outcome!);
        case "claim":
          await this.#claimAndRun(record.message);
          return;
        case "clear":
          return this.#clear(record.message.job_id);
        case "resume":
          this.#save({ ...record, attempt: recovery.attempt });
          return this.#execute({ ...record, attempt: recovery.attempt });
        case "outcome_unknown":
          return await this.#report(record, { state: "error", error: OUTCOME_UNKNOWN_ERROR, attempt: record.attempt });
      }
    } catch (e) {
      // An RPC failed (the chat or tenant object briefly unreachable): the next heartbeat tries again.
      console.warn("runner recovery failed; retrying at the next heartbeat", record.message.job_id, (e as Error).message);
    }
  }

  /** Runs in the background of whichever call started it; never awaited by the consumer. */
  #execute(record: RunRecord): void {
    const jobId = record.message.job_id;
    const controller = new AbortController();
    this.#busy.set(jobId, controller);
    this.ctx.waitUntil(
      this.#attempts(record, controller.signal)
        .catch((e) => {
          // An RPC failed (tenant config, or the report). The heartbeat alarm recovers from what is stored.
          if (!controller.signal.aborted) console.error("runner interrupted; the heartbeat will recover", jobId, e);
        })
        .finally(() => {
          if (this.#busy.get(jobId) === controller) this.#busy.delete(jobId);
        }),
    );
  }

  async #attempts(record: RunRecord, stop: AbortSignal): Promise<void> {
    const claim = record.claim!;
    if (claim.kind === "subordinate") return this.#handToChild(record);
    const target = await this.env.TENANT.getByName(tenantName(record.message.tenant)).runTarget(claim.tool_name);
    const args = JSON.parse(claim.tool_args) as Record<string, unknown>;
    const refused = this.#refusal(target, args);
    if (refused) return this.#report(record, { state: "error", error: refused, attempt: record.attempt });
    const callable = target as Exclude<RunTarget, { kind: "missing" }>;

    for (;;) {
      const remaining = claim.deadline_at - Date.now();
      if (remaining <= 0 || stop.aborted) return; // the ChatDO ends it `timeout`
      record.sent = record.attempt;
      this.#save(record); // before the request leaves: after a crash, this attempt counts as maybe-sent
      const result = await this.#attempt(callable, record, args, stop, remaining);
      if (result === "stopped") return; // stopped or past the deadline: not an `error` (SPEC §4)
      if (result.kind === "done") {
        const outcome: JobOutcome =
          result.state === "success"
            ? { state: "success", result: result.result, attempt: record.attempt }
            : { state: "error", error: result.error, attempt: record.attempt };
        return this.#report(record, outcome);
      }
      const retry = callable.kind === "http_tool" && isRetryable(result.failure, claim.read_only);
      const delay = backoffMs(record.attempt, result.failure.kind === "status" ? result.failure.retryAfterMs : undefined);
      if (!retry || Date.now() + delay >= claim.deadline_at) {
        const ambiguous = result.failure.kind === "network" && !claim.read_only;
        return this.#report(record, { state: "error", error: ambiguous ? OUTCOME_UNKNOWN_ERROR : result.error, attempt: record.attempt });
      }
      // The failed attempt is settled: should the runner die while backing off, the next one is known unsent.
      record.attempt += 1;
      this.#save(record);
      await sleep(delay, stop);
    }
  }

  async #attempt(
    target: Exclude<RunTarget, { kind: "missing" }>,
    record: RunRecord,
    args: Record<string, unknown>,
    stop: AbortSignal,
    remaining: number,
  ): Promise<AttemptResult | "stopped"> {
    const bound = boundedSignal(stop, remaining);
    const ctx: AttemptContext = {
      job_id: record.message.job_id,
      chat_id: record.message.chat_id,
      tool_name: record.claim!.tool_name,
      tool_args: args,
      attempt: record.attempt,
      signal: bound.signal,
    };
    try {
      return await (target.kind === "http_tool" ? callTenantTool(target, ctx) : callHttpRequest(target, ctx));
    } catch (e) {
      if (bound.signal.aborted) return "stopped";
      throw e;
    } finally {
      bound.release();
    }
  }

  /**
   * A subordinate job runs in its child chat, which reports to the parent
   * itself; the runner only delivers it (idempotent per parent job, so a
   * recovered runner may deliver it again).
   */
  async #handToChild(record: RunRecord): Promise<void> {
    const claim = record.claim!;
    const plan = JSON.parse(claim.spec!) as SubordinatePlan;
    const { tenant, chat_id, job_id } = record.message;
    await this.env.CHAT.getByName(chatName(tenant, plan.context_id)).beginTurn({
      tenant,
      chat_id: plan.context_id,
      parent_chat_id: chat_id,
      root_chat_id: plan.root_chat_id,
      parent_job_id: job_id,
      lease: claim.lease,
      deadline_at: claim.deadline_at,
      level: plan.level,
      profile: plan.profile,
      name: plan.name,
      message: plan.request.message,
      attachments: plan.request.attachments,
      tools: plan.request.tools,
      ...(plan.forked ? { forked: plan.forked } : {}),
      limits: plan.limits,
    });
    this.#clear(job_id);
  }

  /** Why this call must not be made at all, checked again at run time (config may have changed). */
  #refusal(target: RunTarget, args: Record<string, unknown>): string | undefined {
    if (target.kind === "missing") return target.message;
    const url = target.kind === "http_tool" ? target.url : String(args.url);
    const problem = egressProblem(url, this.env.ALLOW_PRIVATE_EGRESS === "true");
    return problem ? `The tool URL ${problem}; outbound calls there are not allowed.` : undefined;
  }

  async #report(record: RunRecord, outcome: JobOutcome): Promise<void> {
    this.#save({ ...record, outcome });
    await this.#chat(record.message).completeJob(record.message.job_id, record.claim!.lease, outcome);
    this.#clear(record.message.job_id);
  }

  #chat(message: JobMessage) {
    return this.env.CHAT.getByName(chatName(message.tenant, message.chat_id));
  }
}
