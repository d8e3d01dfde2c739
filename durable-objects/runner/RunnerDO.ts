/**
 * RunnerDO: one per job (`job/<tenant>/<chat_id>/<job_id>`), alive only while
 * that job runs. The queue consumer hands it a message and acks at once, so a
 * slow tool never holds up the consumer batch and with it every other chat
 * (SPEC §4: one consumer batch in flight per queue under `wrangler dev`).
 *
 * It claims the job from its ChatDO, performs the call in its own invocation
 * (compatibility_date ≥ 2026-10-01 keeps it alive while the fetch is pending),
 * reports the outcome and deletes its storage. A heartbeat alarm notices an
 * execution lost to a restart and recovers by the attempt rules: re-send only
 * what provably was not sent, or what is read-only; otherwise report
 * "outcome unknown" rather than risk running a side effect twice.
 */
import { DurableObject } from "cloudflare:workers";
import type { ClaimResult, JobMessage, JobOutcome } from "../../src/jobs/messages";
import { OUTCOME_UNKNOWN_ERROR } from "../../src/jobs/job";
import { chatName, tenantName } from "../../src/names";
import { callHttpRequest, callTenantTool, type RunTarget } from "../../src/tools/executors";
import type { AttemptResult } from "../../src/tools/http-call";
import { backoffMs, isRetryable } from "../../src/tools/retry";

/** How often a running job's runner checks that its execution is still alive. */
export const RUNNER_HEARTBEAT_MS = 10_000;

type Claimed = Extract<ClaimResult, { status: "claimed" }>;

interface RunRecord {
  message: JobMessage;
  claim: Claimed | null;
  /** The attempt the runner is on (from 1). */
  attempt: number;
  /** The highest attempt whose request may have left this runner. */
  sent: number;
  /** Kept until the ChatDO has acknowledged it, so a failed report is retried, never lost. */
  outcome?: JobOutcome;
}

const KEY = "run";

export class RunnerDO extends DurableObject<Env> {
  #inflight: AbortController | null = null;

  #load(): RunRecord | undefined {
    return this.ctx.storage.kv.get<RunRecord>(KEY);
  }

  #save(record: RunRecord): void {
    this.ctx.storage.kv.put(KEY, record);
  }

  /** Called by the queue consumer. Returns quickly; the call runs on in this object. */
  async start(message: JobMessage): Promise<"started" | "duplicate" | ClaimResult["status"]> {
    if (this.#load()) return "duplicate";
    // Written before the first await, so a concurrent duplicate delivery sees it and backs off.
    this.#save({ message, claim: null, attempt: message.attempt, sent: 0 });
    await this.ctx.storage.setAlarm(Date.now() + RUNNER_HEARTBEAT_MS);
    return this.#claimAndRun(message);
  }

  async #claimAndRun(message: JobMessage): Promise<"started" | ClaimResult["status"]> {
    const claim = await this.#chat(message).claimJob(message.job_id, message.attempt);
    if (claim.status !== "claimed") {
      await this.#clear();
      return claim.status;
    }
    const record = { message, claim, attempt: claim.attempt, sent: 0 };
    this.#save(record);
    await this.ctx.storage.setAlarm(Date.now() + RUNNER_HEARTBEAT_MS);
    this.#execute(record);
    return "started";
  }

  /** Cancellation or deadline, from the ChatDO: stop the call; nothing is reported. */
  async abort(): Promise<void> {
    this.#inflight?.abort(new DOMException("job stopped", "AbortError"));
    this.#inflight = null;
    await this.#clear();
  }

  override async alarm(): Promise<void> {
    const record = this.#load();
    if (!record) return;
    if (this.#inflight) {
      await this.ctx.storage.setAlarm(Date.now() + RUNNER_HEARTBEAT_MS);
      return;
    }
    // This instance is not running the job: the one that was is gone (restart, deploy) or failed.
    if (record.outcome) return this.#report(record, record.outcome);
    const claim = record.claim;
    if (!claim) {
      await this.#claimAndRun(record.message);
      return;
    }
    if (Date.now() >= claim.deadline_at) return this.#clear(); // the ChatDO times it out
    if (record.sent < record.attempt) return this.#resume(record);
    if (claim.read_only) return this.#resume({ ...record, attempt: record.attempt + 1 });
    await this.#report(record, { state: "error", error: OUTCOME_UNKNOWN_ERROR, attempt: record.attempt });
  }

  async #resume(record: RunRecord): Promise<void> {
    this.#save(record);
    await this.ctx.storage.setAlarm(Date.now() + RUNNER_HEARTBEAT_MS);
    this.#execute(record);
  }

  /** Runs in the background of whichever call started it; never awaited by the consumer. */
  #execute(record: RunRecord): void {
    const controller = new AbortController();
    this.#inflight = controller;
    this.ctx.waitUntil(
      this.#attempts(record, controller.signal).catch((e) => {
        if (controller.signal.aborted) return;
        // An RPC failed (tenant config, or the report). The heartbeat alarm picks the job up
        // again from what is stored: a report is re-sent, an unsent attempt is sent.
        console.error("runner interrupted; the heartbeat alarm will recover", record.message.job_id, e);
        if (this.#inflight === controller) this.#inflight = null;
      }),
    );
  }

  async #attempts(record: RunRecord, stop: AbortSignal): Promise<void> {
    const claim = record.claim!;
    const target = await this.env.TENANT.getByName(tenantName(record.message.tenant)).runTarget(claim.tool_name);
    if (target.kind === "missing") {
      return this.#report(record, { state: "error", error: target.message, attempt: record.attempt });
    }
    const args = JSON.parse(claim.tool_args) as Record<string, unknown>;
    for (;;) {
      const remaining = claim.deadline_at - Date.now();
      if (remaining <= 0 || stop.aborted) return; // the ChatDO ends it `timeout`
      record.sent = record.attempt;
      this.#save(record); // before the request leaves: after a crash, this attempt counts as maybe-sent
      const attempt = boundedSignal(stop, remaining);
      let result: AttemptResult;
      try {
        result = await this.#call(target, {
          job_id: record.message.job_id,
          chat_id: record.message.chat_id,
          tool_name: claim.tool_name,
          tool_args: args,
          attempt: record.attempt,
          signal: attempt.signal,
        });
      } catch (e) {
        if (attempt.signal.aborted) return; // stopped or past the deadline: not an `error` (SPEC §4)
        throw e;
      } finally {
        attempt.release();
      }
      if (result.kind === "done") {
        const outcome: JobOutcome =
          result.state === "success"
            ? { state: "success", result: result.result, attempt: record.attempt }
            : { state: "error", error: result.error, attempt: record.attempt };
        return this.#report(record, outcome);
      }
      const retry = target.kind === "http_tool" && isRetryable(result.failure, claim.read_only);
      const delay = backoffMs(record.attempt, result.failure.kind === "status" ? result.failure.retryAfterMs : undefined);
      if (!retry || Date.now() + delay >= claim.deadline_at) {
        const error = retry || result.failure.kind === "status" || claim.read_only ? result.error : OUTCOME_UNKNOWN_ERROR;
        return this.#report(record, { state: "error", error, attempt: record.attempt });
      }
      await sleep(delay, stop);
      record.attempt += 1;
    }
  }

  #call(target: Exclude<RunTarget, { kind: "missing" }>, ctx: Parameters<typeof callTenantTool>[1]) {
    return target.kind === "http_tool" ? callTenantTool(target, ctx) : callHttpRequest(target, ctx);
  }

  async #report(record: RunRecord, outcome: JobOutcome): Promise<void> {
    this.#save({ ...record, outcome });
    await this.#chat(record.message).completeJob(record.message.job_id, record.claim!.lease, outcome);
    this.#inflight = null;
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

/**
 * An abort signal for one attempt: fires on `stop` or after `ms`. Released as
 * soon as the attempt ends, because a pending timer keeps a Durable Object
 * alive (compatibility_date ≥ 2026-10-01): `AbortSignal.timeout(deadline)`
 * would pin the runner in memory until the deadline, long after its job ended.
 */
function boundedSignal(stop: AbortSignal, ms: number): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onStop = () => controller.abort(stop.reason);
  const timer = setTimeout(() => controller.abort(new DOMException("deadline reached", "TimeoutError")), ms);
  stop.addEventListener("abort", onStop);
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      stop.removeEventListener("abort", onStop);
    },
  };
}

function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onStop = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      stop.removeEventListener("abort", onStop);
      resolve();
    }, ms);
    stop.addEventListener("abort", onStop);
  });
}
