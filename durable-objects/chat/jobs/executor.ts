/**
 * Runs a chat's jobs inside the chat, each in an invocation of its own: the
 * fast path calls this object once per job, the queue consumer once per
 * message, the heartbeat once per orphaned job. Every call is claimed (and its
 * attempt recorded) before the request leaves, so an instance lost mid-call
 * leaves a row the heartbeat recovers by the attempt rules of docs/api.md#attempts-and-retries
 * (`./recovery`). Running here instead of in a separate runner object saves
 * the hand-over, the runner's own records and the report back: the outcome is
 * one local write.
 */
import { egressProblem } from "../../../src/egress/policy";
import { endsByTimer, isTerminal, OUTCOME_UNKNOWN_ERROR, type JobRow } from "../../../src/jobs/job";
import type { ClaimResult, JobOutcome } from "../../../src/jobs/messages";
import { callHttpRequest, callTenantTool, type AttemptContext, type RunTarget } from "../../../src/tools/executors";
import { toolUrlRefused, type AttemptResult } from "../../../src/tools/http-call";
import { callMcpTool } from "../../../src/tools/mcp-client";
import { backoffMs, isRetryable } from "../../../src/tools/retry";
import { boundedSignal, sleep } from "../../../src/util/abort";
import type { JobMachine } from "./job-machine";
import type { JobProgress, ProgressFeed } from "../events/job-progress";
import type { ChatStore } from "../storage/chat-store";
import { recoveryStep } from "./recovery";
import type { SubordinatePlan } from "../storage/children";

/** How often a chat with calls in flight checks that each still has a live execution. */
export const EXEC_HEARTBEAT_MS = 10_000;

type Claimed = Extract<ClaimResult, { status: "claimed" }>;
type Callable = Exclude<RunTarget, { kind: "missing" }>;

export type RunAnswer = "started" | "duplicate" | "handled" | "finished" | "held";

export class Executor {
  /** The executions this instance holds; lost with the instance, which is what the heartbeat looks for. */
  readonly #live = new Map<string, AbortController>();

  constructor(
    private readonly store: ChatStore,
    private readonly machine: JobMachine,
    /** Where a running MCP call's progress notifications go. */
    private readonly progress: JobProgress,
  ) {}

  /**
   * Takes a job: claims a pending one and starts its call, or recovers a running one no live
   * execution holds. Returns once that is decided; the call goes on in the calling invocation.
   * `target` comes with the fast path (looked up once per batch); otherwise it is looked up here,
   * before the claim, so a claimed call always leaves at once.
   */
  async run(jobId: string, target?: RunTarget): Promise<RunAnswer> {
    let job = this.store.jobs.get(jobId);
    if (!job || isTerminal(job.state)) return "finished";
    if (this.#live.has(jobId)) return "duplicate";
    if (job.kind === "tool" && !endsByTimer(job) && !target) {
      target = await this.#tenant().runTarget(job.tool_name);
      job = this.store.jobs.get(jobId); // another invocation may have taken it meanwhile
      if (!job || isTerminal(job.state)) return "finished";
      if (this.#live.has(jobId)) return "duplicate";
    }
    return this.#take(job, target, Date.now());
  }

  /** Whether `run` would do anything for this job: a queue copy of a job already taken needs no invocation. */
  wouldRun(jobId: string, now: number): boolean {
    const job = this.store.jobs.get(jobId);
    if (!job || isTerminal(job.state) || this.#live.has(jobId)) return false;
    return job.state === "pending" || recoveryStep(job, now).step !== "none";
  }

  /** Cancellation or deadline: the call stops; nothing is reported (the chat already ended the job). */
  abort(jobId: string): void {
    this.#live.get(jobId)?.abort(new DOMException("job stopped", "AbortError"));
    this.#live.delete(jobId);
  }

  /** Running jobs whose execution was lost with an earlier instance. */
  orphans(now: number): string[] {
    return this.store.jobs
      .running()
      .filter((j) => !this.#live.has(j.job_id) && recoveryStep(j, now).step !== "none")
      .map((j) => j.job_id);
  }

  /** Whether this instance holds a call, which would need recovering if the instance were lost. */
  hasLive(): boolean {
    return this.#live.size > 0;
  }

  /** Synchronous from the state read to the call leaving, so no other invocation can take the job in between. */
  #take(job: JobRow, target: RunTarget | undefined, now: number): RunAnswer {
    const machine = this.machine;
    if (job.state === "pending") {
      if (job.held || job.queue_seq !== null) return "held";
      const claim = machine.claim(job.job_id, 1, now, job);
      if (claim.status !== "claimed") return claim.status;
      this.#begin(claim, job, target, claim.attempt, now);
      return "started";
    }
    const step = recoveryStep(job, now);
    if (step.step === "none") return "duplicate";
    const claim = machine.claim(job.job_id, job.attempt, now, job); // running: the lease it already has
    if (claim.status !== "claimed") return claim.status;
    if (step.step === "outcome_unknown") {
      this.#complete(job, claim, { state: "error", error: OUTCOME_UNKNOWN_ERROR, attempt: job.attempt });
      return "finished";
    }
    const attempt = step.step === "resume" ? step.attempt : job.attempt;
    if (step.step === "resume") this.store.jobs.markSent(job.job_id, attempt);
    this.#begin(claim, job, target, attempt, now);
    return "started";
  }

  #begin(claim: Claimed, job: JobRow, target: RunTarget | undefined, attempt: number, now: number): void {
    const controller = new AbortController();
    this.#live.set(job.job_id, controller);
    this.store.timers.setEarliest("exec", "", now + EXEC_HEARTBEAT_MS);
    const work = claim.kind === "subordinate" ? this.#handToChild(claim, job) : this.#attempts(claim, job, target!, attempt, controller.signal);
    this.store.ctx.waitUntil(
      work
        .catch((e) => {
          // An RPC failed (the child chat, or the report of an outcome): the heartbeat recovers from the row.
          if (!controller.signal.aborted) console.error("job execution interrupted; the heartbeat will recover it", job.job_id, e);
        })
        .finally(() => {
          if (this.#live.get(job.job_id) === controller) this.#live.delete(job.job_id);
        }),
    );
  }

  async #attempts(claim: Claimed, job: JobRow, target: RunTarget, attempt: number, stop: AbortSignal): Promise<void> {
    const args = JSON.parse(claim.tool_args) as Record<string, unknown>;
    const refused = this.#refusal(target, args);
    if (refused) return this.#report(job, claim, { state: "error", error: refused, attempt });
    const callable = target as Callable;
    // One feed across the job's attempts, so a retry cannot write progress sooner than the interval allows.
    const progress = callable.kind === "mcp" ? this.progress.track(job) : undefined;
    try {
      return await this.#attemptLoop(callable, claim, job, args, attempt, stop, progress);
    } finally {
      progress?.stop();
    }
  }

  async #attemptLoop(
    callable: Callable,
    claim: Claimed,
    job: JobRow,
    args: Record<string, unknown>,
    attempt: number,
    stop: AbortSignal,
    progress: ProgressFeed | undefined,
  ): Promise<void> {
    for (;;) {
      const remaining = claim.deadline_at - Date.now();
      if (remaining <= 0 || stop.aborted) return; // the chat ends it `timeout`
      const result = await this.#attempt(callable, claim, job, args, attempt, stop, remaining, progress);
      if (result === "stopped") return; // stopped or past the deadline: not an `error` (docs/api.md#attempts-and-retries)
      if (result.kind === "done") {
        const content = result.content ? { content: result.content } : {};
        const outcome: JobOutcome =
          result.state === "success" ? { state: "success", result: result.result, attempt, ...content } : { state: "error", error: result.error, attempt, ...content };
        progress?.stop(); // hidden once the job ends: a value still waiting would only cost a write
        return this.#report(job, claim, outcome);
      }
      // `http_request` is never retried (docs/api.md#attempts-and-retries).
      const retry = callable.kind !== "http_request" && isRetryable(result.failure, claim.read_only);
      const delay = backoffMs(attempt, result.failure.kind === "status" ? result.failure.retryAfterMs : undefined);
      if (!retry || Date.now() + delay >= claim.deadline_at) {
        const ambiguous = result.failure.kind === "network" && !claim.read_only;
        return this.#report(job, claim, { state: "error", error: ambiguous ? OUTCOME_UNKNOWN_ERROR : result.error, attempt });
      }
      // The failed attempt is settled: should the instance die while backing off, the next one is known unsent.
      attempt += 1;
      this.store.jobs.setAttempt(job.job_id, attempt);
      await sleep(delay, stop);
      if (stop.aborted) return;
      this.store.jobs.markSent(job.job_id, attempt);
    }
  }

  async #attempt(
    target: Callable,
    claim: Claimed,
    job: JobRow,
    args: Record<string, unknown>,
    attempt: number,
    stop: AbortSignal,
    remaining: number,
    progress: ProgressFeed | undefined,
  ): Promise<AttemptResult | "stopped"> {
    const bound = boundedSignal(stop, remaining);
    const allowPrivateEgress = this.#allowPrivateEgress();
    const ctx: AttemptContext = { job_id: job.job_id, chat_id: job.chat_id, tool_name: claim.tool_name, tool_args: args, attempt, signal: bound.signal, allowPrivateEgress };
    try {
      if (target.kind === "mcp") return await callMcpTool(target.endpoint, target.tool, args, bound.signal, remaining, allowPrivateEgress, progress?.report);
      return await (target.kind === "http_tool" ? callTenantTool(target, ctx) : callHttpRequest(target, ctx));
    } catch (e) {
      if (bound.signal.aborted) return "stopped";
      throw e;
    } finally {
      bound.release();
    }
  }

  /**
   * A subordinate job runs in its child chat, which reports back itself; here it is only handed
   * over (idempotent per parent job, so a recovered hand-over may be repeated).
   */
  async #handToChild(claim: Claimed, job: JobRow): Promise<void> {
    const plan = JSON.parse(claim.spec!) as SubordinatePlan;
    const { tenant, chat_id } = this.store.address();
    await this.store.chat(plan.context_id).beginTurn({
      tenant,
      chat_id: plan.context_id,
      parent_chat_id: chat_id,
      root_chat_id: plan.root_chat_id,
      parent_job_id: job.job_id,
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
    this.store.jobs.markSent(job.job_id, claim.attempt);
  }

  /** Why this call must not be made at all, checked at run time (the configuration may have changed). */
  #refusal(target: RunTarget, args: Record<string, unknown>): string | undefined {
    if (target.kind === "missing") return target.message;
    const url = target.kind === "http_tool" ? target.url : target.kind === "mcp" ? target.endpoint.url : String(args.url);
    const problem = egressProblem(url, this.#allowPrivateEgress());
    return problem ? toolUrlRefused(problem) : undefined;
  }

  /** Read at each use: the bindings may change under a live object, and every send obeys the rules in force. */
  #allowPrivateEgress(): boolean {
    return this.store.env().ALLOW_PRIVATE_EGRESS === "true";
  }

  /** Records the outcome (the caller re-arms the alarm). */
  #complete(job: JobRow, claim: Claimed, outcome: JobOutcome): void {
    this.machine.complete(job.job_id, claim.lease, outcome, Date.now(), this.store.limits().max_stored_result_bytes);
  }

  async #report(job: JobRow, claim: Claimed, outcome: JobOutcome): Promise<void> {
    this.#complete(job, claim, outcome);
    await this.store.timers.arm();
  }

  #tenant() {
    return this.store.tenant();
  }
}
