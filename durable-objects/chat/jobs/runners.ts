/**
 * The chat's side of its runners (docs/architecture.md#where-a-call-runs). The chat never waits on a
 * tool call itself: it claims each call for one runner (recording the attempt before the call
 * leaves), and from then on takes that runner's renewals, retries, progress and outcome under the
 * claim's lease. A runner that stops renewing is lost, whatever hosted it, and its calls become the
 * chat's to recover by the attempt rules of docs/api.md#attempts-and-retries (`./recovery`).
 *
 * A subordinate job is no call: it is handed to its child chat (one short RPC, idempotent per
 * parent job), which reports back itself.
 */
import { isTerminal, OUTCOME_UNKNOWN_ERROR, type JobRow } from "../../../src/core/jobs/job";
import type { ChatLimits, ClaimResult, JobOutcome, RunnerCall, RunnerOutcome } from "../../../src/core/jobs/messages";
import type { Progress } from "../../../src/core/jobs/progress";
import type { RunTarget } from "../../../src/core/tools/executors";
import { runnerLapsed, RUNNER_LAPSES_AFTER_MS } from "../../../src/core/runner/lease";
import type { JobProgress } from "../events/job-progress";
import type { ChatStore } from "../storage/chat-store";
import type { SubordinatePlan } from "../storage/children";
import { EXEC_HEARTBEAT_MS } from "../storage/timers";
import type { JobMachine } from "./job-machine";
import { callWeight } from "./call-placement";
import { CallRoom } from "./call-room";
import { recoveryStep } from "./recovery";
import { jobTraceOf, traceHeaders } from "../../../src/core/telemetry/trace-context";

type Claimed = Extract<ClaimResult, { status: "claimed" }>;

/** Why nothing is to be handed to a runner: the job ended, another invocation has it, or it waits at a gate. */
export type ClaimRefusal = "duplicate" | "handled" | "finished" | "held";

/** What a traced job's call carries out: `traceparent` for its span. */
function traceOfCall(job: JobRow): { trace?: Record<string, string> } {
  const trace = jobTraceOf(job);
  return trace ? { trace: traceHeaders(trace) } : {};
}

/** Only an MCP call reports progress, so only it can stall (`tool_idle_seconds`, docs/api.md#limits-and-bounds). */
function idleOfCall(target: RunTarget, limits: ChatLimits): { idle_seconds?: number } {
  return target.kind === "mcp" && limits.tool_idle_seconds ? { idle_seconds: limits.tool_idle_seconds } : {};
}

export class Runners {
  /** What this instance knows of its calls on their way (the dispatcher places by it). */
  readonly room = new CallRoom();

  constructor(
    private readonly store: ChatStore,
    private readonly machine: JobMachine,
    /** Where a running MCP call's progress goes. */
    private readonly progress: JobProgress,
  ) {}

  /**
   * Claims a job for `runner` (`WORKER_RUNNER` or a runner object's index), synchronously, so nothing
   * can take it in between: what the runner is handed, or why nothing is to be handed. The runner is
   * recorded on the row with the claim, and the heartbeat watches its lease from then on.
   */
  claimFor(job: JobRow, target: RunTarget, runner: number, now: number): RunnerCall | ClaimRefusal {
    const taken = this.#claim(job, now, runner);
    if (typeof taken === "string") return taken;
    const weight = callWeight(target);
    this.room.takenFromQueue(job.job_id);
    if (runner >= 0) this.room.handed(job.job_id, runner, weight);
    // A runner cannot be found lost before its lease lapses: a shorter call needs no heartbeat at all.
    this.store.timers.setEarliest("exec", "", now + RUNNER_LAPSES_AFTER_MS + 1);
    const { tenant, chat_id } = this.store.address();
    const { claim } = taken;
    return {
      tenant,
      chat_id,
      lease: claim.lease,
      batch_id: job.batch_id,
      weight,
      target,
      call: {
        job_id: job.job_id,
        chat_id: job.chat_id,
        tool_name: claim.tool_name,
        tool_args: claim.tool_args,
        read_only: claim.read_only,
        deadline_at: claim.deadline_at,
        attempt: taken.attempt,
        ...idleOfCall(target, this.store.limits()),
        ...traceOfCall(job),
      },
    };
  }

  /**
   * A subordinate job goes to its child chat: claimed, then handed over beside the caller (the child
   * answers at once; a recovered hand-over may be repeated). A hand-over that fails is left to the
   * heartbeat, which finds the job running and never handed.
   */
  handToChild(job: JobRow, now: number): "started" | ClaimRefusal {
    if (this.room.isHandingToChild(job.job_id)) return "duplicate";
    const taken = this.#claim(job, now, null);
    if (typeof taken === "string") return taken;
    if (!this.room.handingToChild(job.job_id)) return "duplicate";
    this.store.timers.setEarliest("exec", "", now + EXEC_HEARTBEAT_MS);
    this.store.ctx.waitUntil(
      this.#beginChildTurn(taken.claim, job)
        .catch((e) =>
          console.error(
            "handing a subordinate to its child chat failed; the heartbeat will recover it",
            job.job_id,
            (e as Error).message,
          ),
        )
        .finally(() => this.room.handedToChild(job.job_id)),
    );
    return "started";
  }

  /**
   * A running call whose attempt may have reached a tool that must not run twice: no runner is to
   * have it, it ends "Outcome unknown" here (true), or it is not such a call (false).
   */
  endIfUnknown(job: JobRow, now: number): boolean {
    if (job.state !== "running" || job.runner !== null || recoveryStep(job, now).step !== "outcome_unknown")
      return false;
    return this.#claim(job, now, null) === "finished";
  }

  /**
   * What each runner object holds of this chat's calls, by the rows (they outlive this instance),
   * weighed as handed where this instance knows, else as the heavier kind.
   */
  objectLoads(): number[] {
    const loads: number[] = [];
    const known = this.room.objectWeights();
    for (const job of this.store.jobs.running()) {
      if (job.runner === null || job.runner < 0) continue;
      loads[job.runner] = (loads[job.runner] ?? 0) + (known.get(job.job_id) ?? 2);
    }
    return loads;
  }

  /** Whether a launch would do anything for this job: a queue copy of a job already taken needs none. */
  wouldRun(job: JobRow, now: number): boolean {
    if (isTerminal(job.state) || this.room.isHandingToChild(job.job_id) || this.room.onItsWayToQueue(job.job_id, now))
      return false;
    if (job.state === "pending") return job.waiting_for === null;
    return job.runner === null && recoveryStep(job, now).step !== "none";
  }

  /**
   * The chat ended the job (cancel, deadline): what this instance knew of its call goes. A runner object is
   * told by the dispatcher.
   */
  forget(jobId: string): void {
    this.room.stop(jobId);
  }

  /**
   * Running jobs no runner holds: taken back from a lost runner, or claimed by an instance lost before its
   * hand-over.
   */
  orphans(now: number): string[] {
    return this.store.jobs
      .running()
      .filter((j) => j.runner === null && !this.room.isHandingToChild(j.job_id) && recoveryStep(j, now).step !== "none")
      .map((j) => j.job_id);
  }

  /** Running calls whose runner's lease went unrenewed too long: that runner is lost. */
  lapsed(now: number): string[] {
    return this.store.jobs
      .running()
      .filter((j) => j.runner !== null && runnerLapsed(j.renewed_at, now))
      .map((j) => j.job_id);
  }

  /**
   * A runner's renewal: the leases still its are renewed; the jobs no longer its (ended, or recovered) are
   * answered, so it stops them.
   */
  renew(calls: { job_id: string; lease: string }[], now: number): string[] {
    const rows = new Map(this.store.jobs.many(calls.map((c) => c.job_id)).map((j) => [j.job_id, j]));
    const ended: string[] = [];
    for (const { job_id, lease } of calls) {
      const job = rows.get(job_id);
      if (job?.state === "running" && job.lease === lease && job.runner !== null) this.store.jobs.renew(job_id, now);
      else ended.push(job_id);
    }
    return ended;
  }

  /** Calls of runners found lost (lapsed, or a hand-over that failed): the chat's to recover, under new leases. */
  lost(jobIds: string[]): void {
    for (const id of jobIds) {
      this.room.left(id);
      this.store.jobs.takeFromRunner(id, crypto.randomUUID());
    }
  }

  /**
   * A runner's record of a retry (see `runCall`): false when the job is no longer this lease's, so the runner
   * stops.
   */
  attempt(jobId: string, lease: string, next: number, phase: "settled" | "sending"): boolean {
    const job = this.store.jobs.get(jobId);
    if (job?.state !== "running" || job.lease !== lease) return false;
    if (phase === "settled") this.store.jobs.setAttempt(jobId, next);
    else this.store.jobs.markSent(jobId, next);
    return true;
  }

  /** A runner's MCP call reported progress (already kept to the interval by the runner). */
  progressed(jobId: string, lease: string, progress: Progress): void {
    const job = this.store.jobs.get(jobId);
    if (job?.state === "running" && job.lease === lease) this.progress.record(job, progress);
  }

  /** A runner's outcomes, ended here in one invocation (the caller re-arms the alarm). */
  reported(reports: RunnerOutcome[], now: number) {
    const maxStoredBytes = this.store.limits().max_stored_result_bytes;
    return reports.map((r) => {
      const result = this.machine.complete(r.job_id, r.lease, r.outcome, now, maxStoredBytes, r.batch_id);
      // A stale report comes from a copy the chat took back: the room is its newer holder's.
      if (result.status !== "stale") this.room.stop(r.job_id);
      return result;
    });
  }

  /**
   * The claim step, synchronous from the state read to the claim, so no other invocation can take
   * the job in between. A running call a runner holds is that runner's until its lease lapses.
   */
  #claim(job: JobRow, now: number, runner: number | null): { claim: Claimed; attempt: number } | ClaimRefusal {
    const machine = this.machine;
    if (job.state === "pending") {
      if (job.waiting_for !== null) return "held"; // its gate dispatches it when it lets it go
      const claim = machine.claim(job.job_id, 1, now, job, runner);
      if (claim.status !== "claimed") return claim.status;
      return { claim, attempt: claim.attempt };
    }
    if (job.runner !== null) return "duplicate";
    const step = recoveryStep(job, now);
    if (step.step === "none") return "duplicate";
    const claim = machine.claim(job.job_id, job.attempt, now, job); // running: the lease it already has
    if (claim.status !== "claimed") return claim.status;
    if (step.step === "outcome_unknown") {
      this.#complete(job, claim, {
        state: "error",
        error: OUTCOME_UNKNOWN_ERROR,
        error_type: "outcome_unknown",
        attempt: job.attempt,
      });
      return "finished";
    }
    const attempt = step.step === "resume" ? step.attempt : job.attempt;
    if (step.step === "resume") this.store.jobs.markSent(job.job_id, attempt);
    if (runner !== null) this.store.jobs.setRunner(job.job_id, runner, now);
    return { claim, attempt };
  }

  /** Idempotent per parent job in the child, so a recovered hand-over may repeat it. */
  async #beginChildTurn(claim: Claimed, job: JobRow): Promise<void> {
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
      metadata: job.metadata,
      budget: job.budget,
      trace: job.trace,
    });
    this.store.jobs.markSent(job.job_id, claim.attempt);
  }

  #complete(job: JobRow, claim: Claimed, outcome: JobOutcome): void {
    this.machine.complete(
      job.job_id,
      claim.lease,
      outcome,
      Date.now(),
      this.store.limits().max_stored_result_bytes,
      job.batch_id,
    );
  }
}
