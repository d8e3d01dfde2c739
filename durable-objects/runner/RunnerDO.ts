/**
 * RunnerDO: one per job (`job/<tenant>/<chat_id>/<job_id>`), alive only while
 * that job runs. The queue consumer (or the ChatDO's fast path) hands it the
 * job and moves on, so a slow tool never holds up a consumer batch and with it
 * every other chat (SPEC §4: one consumer batch in flight per queue under
 * `wrangler dev`).
 *
 * It claims the job from its ChatDO, performs the call in its own invocation
 * (compatibility_date ≥ 2026-10-01 keeps it alive while the fetch is pending),
 * reports the outcome and deletes its storage. A heartbeat alarm notices when
 * no live execution holds the job (restart, deploy, failed RPC) and recovers by
 * the rules in `./run-record`.
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
import { recoveryStep, type RunRecord } from "./run-record";

/** How often a running job's runner checks that its execution is still alive. */
export const RUNNER_HEARTBEAT_MS = 10_000;

const KEY = "run";

export class RunnerDO extends DurableObject<Env> {
  /** What this instance is doing right now; lost with the instance, which is the point. */
  #busy: "claiming" | AbortController | null = null;

  #load(): RunRecord | undefined {
    return this.ctx.storage.kv.get<RunRecord>(KEY);
  }

  #save(record: RunRecord): void {
    this.ctx.storage.kv.put(KEY, record);
  }

  #heartbeat(): Promise<void> {
    return this.ctx.storage.setAlarm(Date.now() + RUNNER_HEARTBEAT_MS);
  }

  /**
   * Hands the job to this runner. Returns once it is claimed; the call runs on in this object.
   * The chat's fast path passes the claim it already made; a queue delivery claims here.
   */
  async start(message: JobMessage, claimed?: ClaimResult): Promise<"started" | "duplicate" | ClaimResult["status"]> {
    const existing = this.#load();
    // A claim that never completed (its instance died mid-RPC) is driven again; anything else is a duplicate.
    if (existing && (existing.claim || this.#busy)) return "duplicate";
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
    this.#busy = "claiming";
    let claim: ClaimResult;
    try {
      claim = await this.#chat(message).claimJob(message.job_id, message.attempt);
    } finally {
      if (this.#busy === "claiming") this.#busy = null;
    }
    if (!this.#load()) return "finished"; // cancelled or timed out while the claim was in flight
    if (claim.status !== "claimed") {
      await this.#clear();
      return claim.status;
    }
    const record: RunRecord = { message, claim, attempt: claim.attempt, sent: 0 };
    this.#save(record);
    this.#execute(record);
    await this.#heartbeat();
    return "started";
  }

  /** Cancellation or deadline, from the ChatDO: stop the call; nothing is reported. */
  async abort(): Promise<void> {
    if (this.#busy instanceof AbortController) this.#busy.abort(new DOMException("job stopped", "AbortError"));
    this.#busy = null;
    await this.#clear();
  }

  override async alarm(): Promise<void> {
    const record = this.#load();
    if (!record) return;
    if (this.#busy) return this.#heartbeat();
    try {
      const recovery = recoveryStep(record, Date.now());
      switch (recovery.step) {
        case "report":
          return await this.#report(record, record.outcome!);
        case "claim":
          await this.#claimAndRun(record.message);
          return;
        case "clear":
          return await this.#clear();
        case "resume":
          this.#save({ ...record, attempt: recovery.attempt });
          this.#execute({ ...record, attempt: recovery.attempt });
          return await this.#heartbeat();
        case "outcome_unknown":
          return await this.#report(record, { state: "error", error: OUTCOME_UNKNOWN_ERROR, attempt: record.attempt });
      }
    } catch (e) {
      // An RPC failed (the chat or tenant object briefly unreachable): try again at the next heartbeat.
      console.warn("runner recovery failed; retrying at the next heartbeat", record.message.job_id, (e as Error).message);
      await this.#heartbeat();
    }
  }

  /** Runs in the background of whichever call started it; never awaited by the consumer. */
  #execute(record: RunRecord): void {
    const controller = new AbortController();
    this.#busy = controller;
    this.ctx.waitUntil(
      this.#attempts(record, controller.signal)
        .catch((e) => {
          // An RPC failed (tenant config, or the report). The heartbeat alarm recovers from what is stored.
          if (!controller.signal.aborted) console.error("runner interrupted; the heartbeat will recover", record.message.job_id, e);
        })
        .finally(() => {
          if (this.#busy === controller) this.#busy = null;
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
    await this.#clear();
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
    await this.#clear();
  }

  async #clear(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  #chat(message: JobMessage) {
    return this.env.CHAT.getByName(chatName(message.tenant, message.chat_id));
  }
}
