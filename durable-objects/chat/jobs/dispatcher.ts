/**
 * How a chat's jobs get going (docs/architecture.md#where-a-call-runs). Each call goes to the one host
 * `callHost` picks for its deadline: a Worker invocation the chat starts itself, the `calls` queue, or
 * a runner object of the chat's. A call for an invocation or an object is claimed here and handed
 * over; one for the queue is claimed by the consumer that takes it. A subordinate is handed to its
 * child chat; a built-in `wait` is claimed and its timer ends it. Then the batch's one queue copy
 * goes. Every step is best effort on top of durable state: the dispatch watchdog re-sends what never
 * started, the heartbeat recovers what a lost runner held, deadlines end what does not stop.
 */
import { endsByTimer, isTerminal, type JobRow } from "../../../src/core/jobs/job";
import { WORKER_RUNNER } from "../../../src/core/runner/lease";
import { callHost, type CallHost, type Hosts } from "../../../src/core/runner/call-host";
import type { JobsMessage, RunnerCall } from "../../../src/core/jobs/messages";
import type { RunTarget } from "../../../src/core/tools/executors";
import type { ChatStore } from "../storage/chat-store";
import { callWeight, groupForRunners, placeInObjects } from "./call-placement";
import { canStartInvocations, handToInvocations, handToObject } from "./hand-over";
import type { ClaimRefusal, Runners } from "./runners";
import type { JobMachine } from "./job-machine";

/**
 * Production's most messages in one `sendBatch` (docs/architecture.md#platform-rules); local queues take any
 * number.
 */
export const MAX_SEND_BATCH = 100;
/** Jobs named in one queue message: one message per batch, and the watchdog's re-send stays far below 128 KB. */
export const JOBS_PER_MESSAGE = 100;

/**
 * `sent`: on its way to the `calls` queue, whose message is its queue copy; `failed`: it could not leave (its
 * copy retries).
 */
export type LaunchAnswer = "started" | "sent" | "failed" | ClaimRefusal;

export class Dispatcher {
  constructor(
    private readonly store: ChatStore,
    private readonly machine: JobMachine,
    private readonly runners: Runners,
  ) {}

  /**
   * An admitted batch's jobs: the calls leave first, then the queue copy goes (before the watchdog
   * would re-send it, docs/architecture.md#platform-rules), so the queue is off the path of every
   * call. If a start fails, the queue copy or the watchdog starts the job.
   */
  async start(jobIds: string[]): Promise<void> {
    const jobs = this.store.jobs.many(jobIds);
    if (jobs.length === 0) return;
    const answers = await this.launch(jobs);
    // A built-in `wait` needs no copy: its durable timer ends it.
    const copies = jobs.filter((j) => !endsByTimer(j) && answers.get(j.job_id) !== "sent");
    if (copies.length) this.store.ctx.waitUntil(this.send(copies.map((j) => ({ job_id: j.job_id, attempt: 1 }))));
  }

  /**
   * Starts or recovers jobs (the fast path, a queue copy, the heartbeat): their targets in one
   * lookup, then each call to its host. From the placement to the last claim nothing is awaited, so
   * a launch running beside this one sees the room this one takes. Re-arms the alarm for the claims.
   */
  async launch(asked: JobRow[]): Promise<Map<string, LaunchAnswer>> {
    const answers = new Map<string, LaunchAnswer>();
    const targets = await this.#targets(asked.filter((j) => j.kind === "tool" && !endsByTimer(j)));
    const targetOf = (job: JobRow) => targets[job.tool_name];
    const now = Date.now();
    // Read again after that await: another launch may have taken a job meanwhile, or the chat ended it.
    const all: JobRow[] = [];
    for (const job of this.store.jobs.many(asked.map((j) => j.job_id))) {
      if (this.runners.wouldRun(job, now)) all.push(job);
      else
        answers.set(job.job_id, isTerminal(job.state) ? "finished" : job.waiting_for !== null ? "held" : "duplicate");
    }
    const calls: JobRow[] = [];
    for (const job of all) {
      if (endsByTimer(job)) answers.set(job.job_id, this.#claimWait(job, now));
      else if (job.kind === "subordinate") answers.set(job.job_id, this.runners.handToChild(job, now));
      // A call recovered only to end "Outcome unknown" needs no runner: it ends here.
      else if (this.runners.endIfUnknown(job, now)) answers.set(job.job_id, "finished");
      else calls.push(job);
    }
    const byHost = new Map<CallHost, JobRow[]>([
      ["invocation", []],
      ["queue", []],
      ["object", []],
    ]);
    const hosts = this.#hosts();
    for (const job of calls) {
      // A call without its target cannot leave, wherever it would go: its queue copy retries it.
      if (targetOf(job) === undefined) answers.set(job.job_id, "failed");
      else byHost.get(callHost(job.deadline_at, now, hosts))!.push(job);
    }
    const weighed = (jobs: JobRow[]) => jobs.map((job) => ({ job_id: job.job_id, weight: callWeight(targetOf(job)) }));
    const byId = new Map(calls.map((j) => [j.job_id, j]));
    const claimFor = (runner: number) => (ids: string[]) =>
      this.#claimFor(
        runner,
        ids.map((id) => byId.get(id)!),
        targetOf,
        answers,
        Date.now(),
      );
    // Invocation groups after the first few are claimed after an await: their rows are read again then.
    const claimLater = (ids: string[]) =>
      this.#claimFor(WORKER_RUNNER, this.store.jobs.many(ids), targetOf, answers, Date.now());

    const toQueue = this.#sendToQueue(byHost.get("queue")!, targetOf, answers);
    const toInvocations = handToInvocations(
      this.store,
      this.runners,
      weighed(byHost.get("invocation")!),
      claimFor(WORKER_RUNNER),
      claimLater,
    );
    const inObjects = byHost.get("object")!;
    const placed = inObjects.length
      ? placeInObjects(weighed(inObjects), this.runners.objectLoads())
      : new Map<number, string[]>();
    const toObjects = [...placed].map(([index, ids]) => handToObject(this.store, index, claimFor(index)(ids)));
    await this.store.timers.arm(); // the claims set the heartbeat and deadlines
    await Promise.all([toQueue, toInvocations, ...toObjects]);
    return answers;
  }

  /**
   * Whether starting `job` now opens no call that reports back to this chat: a tool call for the
   * `calls` queue (its consumer is an invocation of its own) or a built-in `wait` (a timer ends it).
   */
  startsOffChain(job: JobRow, now: number): boolean {
    if (endsByTimer(job)) return true;
    return job.kind === "tool" && callHost(job.deadline_at, now, this.#hosts()) === "queue";
  }

  /** The hosts this build has; without the `calls` queue or the invocation entrypoint the others take their calls. */
  #hosts(): Hosts {
    return { invocation: canStartInvocations(this.store), queue: this.store.env().CALLS !== undefined };
  }

  /** A built-in `wait` needs no runner: claimed here, its durable timer ends it. */
  #claimWait(job: JobRow, now: number): LaunchAnswer {
    const claim = this.machine.claim(job.job_id, job.state === "pending" ? 1 : job.attempt, now, job);
    return claim.status === "claimed" ? "started" : claim.status;
  }

  /**
   * Calls for the `calls` queue, billed for CPU only while they wait there: in groups of at most
   * `CALLS_PER_OBJECT`, one invocation each, unclaimed. The runner claims them when it takes them
   * (`claimForQueuedRunner`); a message lost before that leaves them pending, for the dispatch watchdog.
   */
  async #sendToQueue(
    jobs: JobRow[],
    targetOf: (job: JobRow) => RunTarget | undefined,
    answers: Map<string, LaunchAnswer>,
  ): Promise<void> {
    if (jobs.length === 0) return;
    const groups = groupForRunners(jobs.map((j) => ({ job_id: j.job_id, weight: callWeight(targetOf(j)) })));
    const address = this.store.address();
    const messages = groups.map((ids) => ({
      body: { ...address, jobs: ids.map((job_id) => ({ job_id, attempt: 1 })) } satisfies JobsMessage,
    }));
    const ids = jobs.map((j) => j.job_id);
    // Marked before the send, so a launch beside this one sends nothing twice.
    this.runners.room.sentToQueue(ids, Date.now());
    try {
      for (let i = 0; i < messages.length; i += MAX_SEND_BATCH)
        await this.store.env().CALLS!.sendBatch(messages.slice(i, i + MAX_SEND_BATCH));
      for (const id of ids) answers.set(id, "sent");
    } catch (e) {
      console.warn(
        "sending calls to the calls queue failed; the queue copy or the watchdog sends them again",
        (e as Error).message,
      );
      for (const id of ids) {
        this.runners.room.takenFromQueue(id);
        answers.set(id, "failed");
      }
    }
  }

  /**
   * A `calls` consumer takes the calls its message named: each claimed for it (or recovered, by the
   * attempt rules), with its tool's target; the calls that need no running (ended, taken, waiting at
   * a gate) are left out.
   */
  async claimForQueuedRunner(jobIds: string[]): Promise<RunnerCall[]> {
    const open = this.store.jobs.many(jobIds).filter((j) => j.kind === "tool" && !isTerminal(j.state));
    if (open.length === 0) return [];
    const targets = await this.store.runTargets([...new Set(open.map((j) => j.tool_name))]);
    // Read again after that await: another invocation may have taken or ended a job meanwhile.
    const calls = this.#claimFor(
      WORKER_RUNNER,
      this.store.jobs.many(open.map((j) => j.job_id)),
      (job) => targets[job.tool_name],
      new Map(),
      Date.now(),
    );
    try {
      await this.store.timers.arm(); // the claims set the heartbeat; a recovery may have ended a job
    } catch (e) {
      // The claims stand and the runner must have them: the alarm is armed again with the next write.
      console.warn("arming the alarm after a runner's claims failed", (e as Error).message);
    }
    return calls;
  }

  /**
   * The queue copies of a consumer batch. Copies of jobs already taken, nearly all of them, end
   * here; the others start as the fast path does. A job that could not leave answers `retry`, so
   * its message is redelivered.
   */
  async takeQueued(jobIds: string[]): Promise<(LaunchAnswer | "retry")[]> {
    const now = Date.now();
    // By the time a copy arrives its jobs have usually ended, or run somewhere: a read of their
    // ids says so, and only the rest are read whole.
    const active = this.store.jobs.stillActive(jobIds);
    // A running job is a runner's, or the heartbeat's to recover: a copy starts only what never started.
    const toStart = this.store.jobs
      .many(active)
      .filter((job) => job.state === "pending" && this.runners.wouldRun(job, now));
    if (toStart.length === 0) return jobIds.map(() => "duplicate");
    const answers = await this.launch(toStart);
    return jobIds.map((id) => {
      const answer = answers.get(id) ?? "duplicate";
      return answer === "failed" ? "retry" : answer;
    });
  }

  /**
   * Claims calls for `runner`; a call without its target (gone from the config meanwhile) cannot leave and is
   * left to its queue copy.
   */
  #claimFor(
    runner: number,
    jobs: JobRow[],
    targetOf: (job: JobRow) => RunTarget | undefined,
    answers: Map<string, LaunchAnswer>,
    now: number,
  ): RunnerCall[] {
    const claimed: RunnerCall[] = [];
    for (const job of jobs) {
      const target = targetOf(job);
      const taken = target ? this.runners.claimFor(job, target, runner, now) : "failed";
      if (typeof taken === "string") answers.set(job.job_id, taken);
      else {
        claimed.push(taken);
        answers.set(job.job_id, "started");
      }
    }
    return claimed;
  }

  /**
   * The heartbeat: runners whose leases lapsed are lost, whatever hosted them, and every running
   * call no runner holds is placed again like a new call, by the attempt rules (a side-effecting
   * call that may have left ends "Outcome unknown"). True while a call may still need watching.
   */
  recoverLost(now: number): boolean {
    this.runners.lost(this.runners.lapsed(now));
    const orphans = this.runners.orphans(now);
    // Beside the alarm, so the deadlines due with it are not held up.
    if (orphans.length > 0) this.store.ctx.waitUntil(this.launch(this.store.jobs.many(orphans)));
    return (
      orphans.length > 0 ||
      this.store.jobs.running().some((j) => j.runner !== null || (j.kind === "subordinate" && j.sent === 0))
    );
  }

  /**
   * The queue copies: one message per batch (up to `JOBS_PER_MESSAGE` jobs), at most 100 messages per send;
   * false when a send failed.
   */
  async send(jobs: { job_id: string; attempt: number }[]): Promise<boolean> {
    const address = this.store.address();
    const messages: { body: JobsMessage }[] = [];
    for (let i = 0; i < jobs.length; i += JOBS_PER_MESSAGE)
      messages.push({ body: { ...address, jobs: jobs.slice(i, i + JOBS_PER_MESSAGE) } });
    try {
      for (let i = 0; i < messages.length; i += MAX_SEND_BATCH)
        await this.store.env().JOBS.sendBatch(messages.slice(i, i + MAX_SEND_BATCH));
      return true;
    } catch (e) {
      console.warn("queue send failed; the watchdog will retry", (e as Error).message);
      return false;
    }
  }

  /** The calls' tool targets in one lookup; on failure none leaves, and their queue copies retry. */
  async #targets(calls: JobRow[]): Promise<Record<string, RunTarget>> {
    const names = [...new Set(calls.map((j) => j.tool_name))];
    if (names.length === 0) return {};
    try {
      return await this.store.runTargets(names);
    } catch (e) {
      console.warn("tool targets lookup failed; the queue copies start the calls", (e as Error).message);
      return {};
    }
  }

  /** Stops what works on a job the chat ended itself: its call, and a subordinate's child turn. */
  async stopWork(job: JobRow): Promise<void> {
    await this.stopCall(job);
    if (job.kind !== "subordinate" || !job.context_id) return;
    const { tenant, chat_id } = this.store.address();
    try {
      await this.store
        .chat(job.context_id)
        .stopTurn({ tenant, chat_id: job.context_id, parent_job_id: job.job_id, parent_chat_id: chat_id });
    } catch (e) {
      console.warn("stopping a child's turn failed (best effort)", job.job_id, (e as Error).message);
    }
  }

  /**
   * Stops a job's call. A runner object is told at once; a Worker invocation cannot be reached and
   * hears at its next renewal or attempt. Either way its outcome is discarded.
   */
  async stopCall(job: JobRow): Promise<void> {
    this.runners.forget(job.job_id);
    if (job.runner === null || job.runner === WORKER_RUNNER) return;
    try {
      await this.store.callRunner(job.runner).abort(job.job_id);
    } catch (e) {
      console.warn(
        "stopping a runner object's call failed (best effort: its outcome is discarded)",
        job.job_id,
        (e as Error).message,
      );
    }
  }
}
