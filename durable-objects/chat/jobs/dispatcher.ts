/**
 * How a chat's jobs get going: a call an invocation outlives goes to a Worker runner
 * (docs/architecture.md#where-calls-wait), one the chat starts itself when the call's deadline is
 * near, else 4 to a `calls` message that is its queue copy; the others are
 * placed at once, up to 4 in the chat (each in an invocation of its own) and the rest in the chat's
 * call lanes (docs/architecture.md#call-lanes), then the batch's one queue copy goes. Every step is
 * best effort on top of durable state: the dispatch watchdog re-sends what never started, the
 * heartbeat recovers what was lost mid-call (here, in a lane or in a runner), deadlines end what
 * does not stop.
 */
import { endsByTimer, isTerminal, type JobRow } from "../../../src/jobs/job";
import { WORKER_RUNNER, workerRunnerFor } from "../../../src/runner/lease";
import type { JobsMessage, LaneCall } from "../../../src/jobs/messages";
import type { RunTarget } from "../../../src/tools/executors";
import type { ChatStore } from "../storage/chat-store";
import { callWeight, groupForRunners, placeCalls } from "./call-placement";
import { canStartDirectRunners, handToDirectRunners } from "./direct-runners";
import type { Executor, RunAnswer } from "./executor";
import type { JobMachine } from "./job-machine";
import { runOnSelf } from "./self-calls";

/** Production's most messages in one `sendBatch` (docs/architecture.md#platform-rules); local queues take any number. */
export const MAX_SEND_BATCH = 100;
/** Jobs named in one queue message: one message per batch, and the watchdog's re-send stays far below 128 KB. */
export const JOBS_PER_MESSAGE = 100;

/** `sent`: on its way to a Worker runner, whose `calls` message is its queue copy. */
export type LaunchAnswer = RunAnswer | "failed" | "sent";

export class Dispatcher {
  constructor(
    private readonly store: ChatStore,
    private readonly machine: JobMachine,
    private readonly executor: Executor,
  ) {}

  /**
   * An admitted batch's jobs: the calls start first, then the queue copy goes (before the
   * watchdog would re-send it, docs/architecture.md#platform-rules), so the queue is off the path
   * of every call. If a start fails, the queue copy or the watchdog starts the job.
   */
  async start(jobIds: string[]): Promise<void> {
    const jobs = this.store.jobs.many(jobIds);
    // A built-in `wait` needs no call: it is claimed here and its durable timer ends it.
    const waits = jobs.filter(endsByTimer);
    for (const job of waits) this.machine.claim(job.job_id, 1, Date.now());
    if (waits.length) await this.store.timers.arm();
    const toRun = jobs.filter((j) => !endsByTimer(j));
    if (toRun.length === 0) return;
    const answers = await this.launch(toRun, "fast start failed; the queue copy will start the job");
    const copies = toRun.filter((j) => answers.get(j.job_id) !== "sent");
    if (copies.length) this.store.ctx.waitUntil(this.send(copies.map((j) => ({ job_id: j.job_id, attempt: 1 }))));
  }

  /**
   * Starts or recovers jobs (the fast path, the queue consumer, the heartbeat): their targets in
   * one lookup, then each placed in the chat or a lane. The chat's share runs each in an invocation
   * of its own; with `firstHere` the first of it runs in the calling invocation (the consumer's, so
   * a job can start even when the chat cannot reach itself; the caller re-arms the alarm). A job whose start failed answers `failed`.
   */
  async launch(all: JobRow[], onFailure: string, firstHere = false): Promise<Map<string, LaunchAnswer>> {
    const targets = await this.#targets(all);
    const targetOf = (job: JobRow) => (job.kind === "tool" ? targets[job.tool_name] : undefined);
    const now = Date.now();
    const runners = this.store.env().CALLS !== undefined;
    const ownRunners = runners && canStartDirectRunners(this.store);
    const runnerOf = (job: JobRow) => {
      const runner = runners ? workerRunnerFor(job, now) : undefined;
      return runner === "direct" && !ownRunners ? "queued" : runner;
    };
    const toRunners = this.#sendToRunners(all.filter((job) => runnerOf(job) === "queued"), targetOf);
    const jobs = all.filter((job) => runnerOf(job) === undefined);
    // From the placement to the last claim nothing is awaited: a launch running beside this one
    // sees the room it takes in the chat (reserved) and in the lanes (claimed).
    // A subordinate's hand-over is an RPC to its child chat, not a call: it always stays here.
    const calls = jobs.map((job) => ({ job_id: job.job_id, weight: job.kind === "tool" ? callWeight(targetOf(job)) : 0 }));
    const placement = placeCalls(calls, this.executor.room.hereLoad(), this.executor.room.laneLoads());
    const byId = new Map(jobs.map((j) => [j.job_id, j]));
    const weights = new Map(calls.map((c) => [c.job_id, c.weight]));
    for (const id of placement.here) this.executor.room.reserve(id, weights.get(id)!);
    const answers = new Map<string, LaunchAnswer>();
    const toDirect = handToDirectRunners(this.store, this.executor, this.#claimAway(WORKER_RUNNER, all.filter((job) => runnerOf(job) === "direct"), targetOf, answers));
    const toLanes = [...placement.lanes].map(([lane, ids]) => ({ lane, calls: this.#claimAway(lane, ids.map((id) => byId.get(id)!), targetOf, answers) }));

    const [first, ...rest] = placement.here.map((id) => byId.get(id)!);
    const direct = firstHere ? first : undefined;
    const inThisOne = direct
      ? this.executor.run(direct.job_id, targets).catch((e: Error): LaunchAnswer => (console.warn(onFailure, direct.job_id, e.message), "failed"))
      : undefined;
    const viaSelf = runOnSelf(this.store, direct ? rest : placement.here.map((id) => byId.get(id)!), { targets, onFailure });
    const handed = toLanes.filter((l) => l.calls.length > 0).map((l) => this.#hand(l.lane, l.calls));
    if (handed.length) await this.store.timers.arm(); // the lane claims set the heartbeat
    try {
      const [ran, own, sent] = await Promise.all([viaSelf, inThisOne, toRunners, toDirect, ...handed]);
      for (const [id, answer] of [...ran, ...sent]) answers.set(id, answer);
      if (direct && own) answers.set(direct.job_id, own);
      return answers;
    } finally {
      for (const id of placement.here) this.executor.room.unreserve(id);
    }
  }

  /**
   * Calls whose deadline a Worker invocation outlives wait there, billed for CPU only
   * (docs/architecture.md#where-calls-wait): sent to the `calls` queue in groups of at most
   * `CALLS_PER_OBJECT`, one invocation each, unclaimed. The runner claims them when it takes them
   * (`claimForRunner`); a message lost before that leaves them pending, for the dispatch watchdog.
   */
  async #sendToRunners(jobs: JobRow[], targetOf: (job: JobRow) => RunTarget | undefined): Promise<Map<string, LaunchAnswer>> {
    const answers = new Map<string, LaunchAnswer>();
    if (jobs.length === 0) return answers;
    const groups = groupForRunners(jobs.map((j) => ({ job_id: j.job_id, weight: callWeight(targetOf(j)) })));
    const address = this.store.address();
    const messages = groups.map((ids) => ({ body: { ...address, jobs: ids.map((job_id) => ({ job_id, attempt: 1 })) } satisfies JobsMessage }));
    try {
      for (let i = 0; i < messages.length; i += MAX_SEND_BATCH) await this.store.env().CALLS!.sendBatch(messages.slice(i, i + MAX_SEND_BATCH));
      this.executor.room.sentToRunner(jobs.map((j) => j.job_id), Date.now());
      for (const job of jobs) answers.set(job.job_id, "sent");
    } catch (e) {
      console.warn("sending calls to runners failed; the queue copy or the watchdog sends them again", (e as Error).message);
      for (const job of jobs) answers.set(job.job_id, "failed");
    }
    return answers;
  }

  /**
   * A Worker runner takes its calls: each claimed for it (or recovered, by the attempt rules), with
   * its tool's target; the calls that need no running (ended, taken, waiting at a gate) are left out.
   */
  async claimForRunner(jobIds: string[]): Promise<LaneCall[]> {
    const open = this.store.jobs.many(jobIds).filter((j) => j.kind === "tool" && !isTerminal(j.state));
    if (open.length === 0) return [];
    const targets = await this.store.runTargets([...new Set(open.map((j) => j.tool_name))]);
    const now = Date.now();
    const calls: LaneCall[] = [];
    // Read again after that await: another invocation may have taken or ended a job meanwhile.
    for (const job of this.store.jobs.many(open.map((j) => j.job_id))) {
      const target = targets[job.tool_name];
      const taken = target ? this.executor.claimAway(job, target, WORKER_RUNNER, now) : "failed";
      if (typeof taken !== "string") calls.push(taken);
    }
    return calls;
  }

  /**
   * The queue copies of a consumer batch. Copies of jobs already taken, nearly all of them, end
   * here; the others start as the fast path does. A job whose start failed answers `retry`, so
   * its message is redelivered.
   */
  async takeQueued(jobIds: string[]): Promise<(LaunchAnswer | "retry")[]> {
    const now = Date.now();
    // By the time a copy arrives its jobs have usually ended, or run somewhere: a read of their
    // ids says so, and only the rest are read whole.
    const { room } = this.executor;
    const active = new Set(this.store.jobs.stillActive(jobIds));
    // In the message's order: the first job to start runs in the consumer's own call.
    const open = jobIds.filter((id) => active.has(id) && !room.isRunningHere(id) && room.handedAt(id) === undefined);
    const toStart = this.store.jobs.many(open).filter((job) => this.executor.wouldRun(job, now));
    if (toStart.length === 0) return jobIds.map(() => "duplicate");
    const answers = await this.launch(toStart, "starting a queued job failed; its message is retried", true);
    return jobIds.map((id) => {
      const answer = answers.get(id) ?? "duplicate";
      return answer === "failed" ? "retry" : answer;
    });
  }

  /** Claims a lane's share, or a direct runner's (`WORKER_RUNNER`); a call without its target cannot leave and is left to the queue copy. */
  #claimAway(lane: number, jobs: JobRow[], targetOf: (job: JobRow) => RunTarget | undefined, answers: Map<string, LaunchAnswer>): LaneCall[] {
    const now = Date.now();
    const claimed: LaneCall[] = [];
    for (const job of jobs) {
      const target = targetOf(job);
      const taken = target ? this.executor.claimAway(job, target, lane, now) : "failed";
      if (typeof taken === "string") answers.set(job.job_id, taken);
      else {
        claimed.push(taken);
        answers.set(job.job_id, "started");
      }
    }
    return claimed;
  }

  /**
   * A lane's calls in one RPC. They are claimed with the lane on their rows, so if the hand-over
   * is lost the heartbeat finds out from the lane and recovers them by the attempt rules.
   */
  async #hand(lane: number, calls: LaneCall[]): Promise<void> {
    try {
      await this.store.lane(lane).run(calls);
    } catch (e) {
      console.warn("handing calls to a lane failed; the heartbeat will recover them", lane, (e as Error).message);
    }
  }

  /**
   * The heartbeat's question to each lane that should hold calls: those it does not hold (lost
   * with a deploy, or a hand-over that never arrived) become the chat's to recover, and so do the
   * calls of Worker runners that stopped renewing their leases.
   */
  async checkLanes(now: number): Promise<void> {
    this.executor.runnersLost(this.executor.lapsedRunners(now));
    const asks = [...this.executor.inLanes(now)].map(async ([lane, ids]) => {
      try {
        const held = new Set(await this.store.lane(lane).holding(ids));
        this.executor.lostFromLane(ids.filter((id) => !held.has(id)));
      } catch (e) {
        console.warn("a lane did not answer; asked again at the next heartbeat", lane, (e as Error).message);
      }
    });
    await Promise.all(asks);
  }

  /** The queue copies: one message per batch (up to `JOBS_PER_MESSAGE` jobs), at most 100 messages per send; false when a send failed. */
  async send(jobs: { job_id: string; attempt: number }[]): Promise<boolean> {
    const address = this.store.address();
    const messages: { body: JobsMessage }[] = [];
    for (let i = 0; i < jobs.length; i += JOBS_PER_MESSAGE) messages.push({ body: { ...address, jobs: jobs.slice(i, i + JOBS_PER_MESSAGE) } });
    try {
      for (let i = 0; i < messages.length; i += MAX_SEND_BATCH) await this.store.env().JOBS.sendBatch(messages.slice(i, i + MAX_SEND_BATCH));
      return true;
    } catch (e) {
      console.warn("queue send failed; the watchdog will retry", (e as Error).message);
      return false;
    }
  }

  /** The jobs' tool targets in one call; on failure each job run here looks its own up. */
  async #targets(jobs: JobRow[]): Promise<Record<string, RunTarget>> {
    const names = [...new Set(jobs.filter((j) => j.kind === "tool" && !endsByTimer(j)).map((j) => j.tool_name))];
    if (names.length === 0) return {};
    try {
      return await this.store.runTargets(names);
    } catch (e) {
      console.warn("tool targets lookup failed; each job looks its own up", (e as Error).message);
      return {};
    }
  }

  /** Stops what works on a job the chat ended itself: its call (here or in its lane), and a subordinate's child turn. */
  async stopWork(job: JobRow): Promise<void> {
    await this.stopCall(job);
    if (job.kind !== "subordinate" || !job.context_id) return;
    const { tenant, chat_id } = this.store.address();
    try {
      await this.store.chat(job.context_id).stopTurn({ tenant, chat_id: job.context_id, parent_job_id: job.job_id, parent_chat_id: chat_id });
    } catch (e) {
      console.warn("stopping a child's turn failed (best effort)", job.job_id, (e as Error).message);
    }
  }

  /** Stops a job's call, here or in the lane its row names; a lane that cannot be told finishes the call and its report is discarded. */
  async stopCall(job: JobRow): Promise<void> {
    this.executor.abort(job.job_id);
    // A Worker runner cannot be reached: it hears at its next renewal or attempt, and its outcome is discarded.
    if (job.lane === null || job.lane === WORKER_RUNNER) return;
    try {
      await this.store.lane(job.lane).abort(job.job_id);
    } catch (e) {
      console.warn("stopping a lane's call failed (best effort: its outcome is discarded)", job.job_id, (e as Error).message);
    }
  }
}
