/**
 * Runs a chat's calls (docs/architecture.md#call-lanes): the ones placed in the chat, each in an
 * invocation of its own, and the claims of the ones handed to its call lanes. Every call is claimed
 * (and its attempt recorded) before the request leaves, so an instance or lane lost mid-call
 * leaves a row the heartbeat recovers by the attempt rules of docs/api.md#attempts-and-retries
 * (`./recovery`). A call run here reports its outcome with one local write.
 */
import { endsByTimer, isTerminal, OUTCOME_UNKNOWN_ERROR, type JobRow } from "../../../src/jobs/job";
import type { ClaimResult, JobOutcome, LaneCall } from "../../../src/jobs/messages";
import type { Progress } from "../../../src/jobs/progress";
import { CallMeter } from "../../../src/tools/call-meter";
import type { RunTarget } from "../../../src/tools/executors";
import { runCall } from "../../../src/jobs/run-call";
import type { JobMachine } from "./job-machine";
import type { JobProgress } from "../events/job-progress";
import type { ChatStore } from "../storage/chat-store";
import { callWeight } from "./call-placement";
import { CallRoom } from "./call-room";
import { recoveryStep } from "./recovery";
import type { SubordinatePlan } from "../storage/children";
import { EXEC_HEARTBEAT_MS } from "../storage/timers";
import { RUNNER_LAPSES_AFTER_MS, runnerLapsed, WORKER_RUNNER } from "../../../src/runner/lease";

/** A lane that says it does not hold a call handed to it this recently may not have received it yet. */
export const LANE_HANDOVER_GRACE_MS = 5_000;

type Claimed = Extract<ClaimResult, { status: "claimed" }>;

export type RunAnswer = "started" | "duplicate" | "handled" | "finished" | "held";

export class Executor {
  /** Where this instance's calls run, and the room they take (the dispatcher places by it). */
  readonly room = new CallRoom();
  /** What the calls run here have waiting for headers, measured (tests hold it to the budget). */
  readonly meter = new CallMeter();

  constructor(
    private readonly store: ChatStore,
    private readonly machine: JobMachine,
    /** Where a running MCP call's progress notifications go. */
    private readonly progress: JobProgress,
  ) {}

  /**
   * Takes a job: claims a pending one and starts its call, or recovers a running one no live
   * execution holds. Returns once that is decided; the call goes on in the calling invocation.
   * `targets` (by tool name) come with the dispatcher, looked up once per group of jobs; a target
   * missing there is looked up here, before the claim, so a claimed call always leaves at once.
   */
  async run(jobId: string, targets: Record<string, RunTarget> = {}): Promise<RunAnswer> {
    let job = this.store.jobs.get(jobId);
    if (!job || isTerminal(job.state)) return "finished";
    if (this.room.isRunningHere(jobId)) return "duplicate";
    let target = job.kind === "tool" ? targets[job.tool_name] : undefined;
    if (job.kind === "tool" && !endsByTimer(job) && !target) {
      target = (await this.store.runTargets([job.tool_name]))[job.tool_name];
      job = this.store.jobs.get(jobId); // another invocation may have taken it meanwhile
      if (!job || isTerminal(job.state)) return "finished";
      if (this.room.isRunningHere(jobId)) return "duplicate";
    }
    const taken = this.#claim(job, Date.now(), null);
    if (typeof taken === "string") return taken;
    this.#begin(taken.claim, job, target, taken.attempt, Date.now());
    return "started";
  }

  /**
   * Claims a job for call lane `lane`, or for a Worker runner (`WORKER_RUNNER`), synchronously, so
   * nothing can take it in between: what the runner is handed, or why nothing is to be handed. The
   * runner is recorded on the row with the claim, and the heartbeat watches it from then on.
   */
  claimAway(job: JobRow, target: RunTarget, lane: number, now: number): LaneCall | RunAnswer {
    if (this.room.isRunningHere(job.job_id) || this.room.handedAt(job.job_id) !== undefined) return "duplicate";
    const taken = this.#claim(job, now, lane);
    if (typeof taken === "string") return taken;
    const weight = callWeight(target);
    if (lane === WORKER_RUNNER) this.room.takenByRunner(job.job_id);
    else this.room.handed(job.job_id, lane, weight, now);
    // A runner cannot be found lost before its lease lapses: a shorter call needs no heartbeat at all.
    this.store.timers.setEarliest("exec", "", now + (lane === WORKER_RUNNER ? RUNNER_LAPSES_AFTER_MS : EXEC_HEARTBEAT_MS));
    const { tenant, chat_id } = this.store.address();
    const { claim } = taken;
    return {
      tenant,
      chat_id,
      lease: claim.lease,
      batch_id: job.batch_id,
      weight,
      target,
      call: { job_id: job.job_id, chat_id: job.chat_id, tool_name: claim.tool_name, tool_args: claim.tool_args, read_only: claim.read_only, deadline_at: claim.deadline_at, attempt: taken.attempt },
    };
  }

  /** Whether `run` would do anything for this job: a queue copy of a job already taken needs no invocation. */
  wouldRun(job: JobRow, now: number): boolean {
    if (isTerminal(job.state) || this.room.isRunningHere(job.job_id) || this.room.handedAt(job.job_id) !== undefined) return false;
    if (this.room.onItsWayToRunner(job.job_id, now)) return false;
    return job.state === "pending" || (job.lane === null && recoveryStep(job, now).step !== "none");
  }

  /** Cancellation or deadline: the call here stops; nothing is reported (the chat already ended the job). A lane's call is stopped by the dispatcher. */
  abort(jobId: string): void {
    this.room.stop(jobId);
  }

  /** Running jobs no live execution holds: lost with an earlier instance, or with a lane that said so. */
  orphans(now: number): string[] {
    return this.store.jobs
      .running()
      .filter((j) => j.lane === null && !this.room.isRunningHere(j.job_id) && recoveryStep(j, now).step !== "none")
      .map((j) => j.job_id);
  }

  /** Running calls the rows say a lane holds, by lane, leaving out hand-overs too recent to have arrived. */
  inLanes(now: number): Map<number, string[]> {
    const byLane = new Map<number, string[]>();
    for (const job of this.store.jobs.running()) {
      if (job.lane === null || job.lane === WORKER_RUNNER) continue;
      const handedAt = this.room.handedAt(job.job_id);
      if (handedAt !== undefined && now - handedAt < LANE_HANDOVER_GRACE_MS) continue;
      byLane.set(job.lane, [...(byLane.get(job.lane) ?? []), job.job_id]);
    }
    return byLane;
  }

  /** Calls Worker runners hold whose leases went unrenewed too long: those runners are lost. */
  lapsedRunners(now: number): string[] {
    return this.store.jobs
      .running()
      .filter((j) => j.lane === WORKER_RUNNER && runnerLapsed(j.renewed_at, now))
      .map((j) => j.job_id);
  }

  /** A Worker runner's renewal: the leases still its are renewed; the jobs that are no longer its (ended, or recovered) are answered, so it stops them. */
  renewLeases(calls: { job_id: string; lease: string }[], now: number): string[] {
    const rows = new Map(this.store.jobs.many(calls.map((c) => c.job_id)).map((j) => [j.job_id, j]));
    const ended: string[] = [];
    for (const { job_id, lease } of calls) {
      const job = rows.get(job_id);
      if (job?.state === "running" && job.lease === lease && job.lane === WORKER_RUNNER) this.store.jobs.renew(job_id, now);
      else ended.push(job_id);
    }
    return ended;
  }

  /** Calls of Worker runners found lost (`lapsedRunners`): the chat's to recover, under new leases. */
  runnersLost(jobIds: string[]): void {
    for (const id of jobIds) this.store.jobs.takeFromRunner(id, crypto.randomUUID());
  }

  /** A lane does not hold these calls (any more): they are the chat's to recover. */
  lostFromLane(jobIds: string[]): void {
    for (const id of jobIds) {
      this.room.laneEnded(id);
      this.store.jobs.setLane(id, null);
    }
  }

  /** Whether this instance holds a call, which would need recovering if the instance or its lane were lost. */
  hasLive(): boolean {
    return this.room.holdsAny();
  }

  /** A lane's record of a retry (see `runCall`): false when the job is no longer this lease's, so the lane stops. */
  laneAttempt(jobId: string, lease: string, next: number, phase: "settled" | "sending"): boolean {
    const job = this.store.jobs.get(jobId);
    if (job?.state !== "running" || job.lease !== lease) return false;
    if (phase === "settled") this.store.jobs.setAttempt(jobId, next);
    else this.store.jobs.markSent(jobId, next);
    return true;
  }

  /** A lane's call reported MCP progress. */
  laneProgress(jobId: string, lease: string, progress: Progress): void {
    const job = this.store.jobs.get(jobId);
    if (job?.state === "running" && job.lease === lease) this.progress.record(job, progress);
  }

  /**
   * The claim step, synchronous from the state read to the claim, so no other invocation can take
   * the job in between. A running call the row says a lane holds is that lane's until the
   * heartbeat hears otherwise.
   */
  #claim(job: JobRow, now: number, lane: number | null): { claim: Claimed; attempt: number } | RunAnswer {
    const machine = this.machine;
    if (job.state === "pending") {
      if (job.waiting_for !== null) return "held"; // its gate dispatches it when it lets it go
      const claim = machine.claim(job.job_id, 1, now, job, lane);
      if (claim.status !== "claimed") return claim.status;
      return { claim, attempt: claim.attempt };
    }
    if (job.lane !== null) return "duplicate";
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
    if (lane !== null) this.store.jobs.setLane(job.job_id, lane);
    return { claim, attempt };
  }

  #begin(claim: Claimed, job: JobRow, target: RunTarget | undefined, attempt: number, now: number): void {
    const stop = this.room.begin(job.job_id, claim.kind === "tool" ? callWeight(target) : 0);
    this.store.timers.setEarliest("exec", "", now + EXEC_HEARTBEAT_MS);
    const work = claim.kind === "subordinate" ? this.#handToChild(claim, job) : this.#call(claim, job, target!, attempt, stop.signal);
    this.store.ctx.waitUntil(
      work
        .catch((e) => {
          // An RPC failed (the child chat, or the report of an outcome): the heartbeat recovers from the row.
          if (!stop.signal.aborted) console.error("job execution interrupted; the heartbeat will recover it", job.job_id, e);
        })
        .finally(() => {
          this.room.ended(job.job_id, stop);
        }),
    );
  }

  async #call(claim: Claimed, job: JobRow, target: RunTarget, attempt: number, stop: AbortSignal): Promise<void> {
    // One feed across the job's attempts, so a retry cannot write progress sooner than the interval allows.
    const progress = target.kind === "mcp" ? this.progress.track(job) : undefined;
    try {
      const call = { job_id: job.job_id, chat_id: job.chat_id, tool_name: claim.tool_name, tool_args: claim.tool_args, read_only: claim.read_only, deadline_at: claim.deadline_at, attempt };
      const outcome = await runCall(call, target, stop, {
        settled: (next) => this.store.jobs.setAttempt(job.job_id, next),
        sending: (next) => this.store.jobs.markSent(job.job_id, next),
        progress: progress?.report,
        meter: this.meter,
        // Read at each call: the bindings may change under a live object, and every send obeys the rules in force.
        allowPrivateEgress: this.store.env().ALLOW_PRIVATE_EGRESS === "true",
      });
      progress?.stop(); // hidden once the job ends: a value still waiting would only cost a write
      if (outcome) await this.#report(job, claim, outcome);
    } finally {
      progress?.stop();
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
      metadata: job.metadata,
      budget: job.budget,
    });
    this.store.jobs.markSent(job.job_id, claim.attempt);
  }

  /** Records the outcome (the caller re-arms the alarm). */
  #complete(job: JobRow, claim: Claimed, outcome: JobOutcome): void {
    this.machine.complete(job.job_id, claim.lease, outcome, Date.now(), this.store.limits().max_stored_result_bytes, job.batch_id);
  }

  async #report(job: JobRow, claim: Claimed, outcome: JobOutcome): Promise<void> {
    this.#complete(job, claim, outcome);
    await this.store.timers.arm();
  }
}
