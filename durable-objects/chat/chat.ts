/**
 * One chat's parts, built once per instance and wired here, in one place:
 * storage at the bottom, then events, jobs, subagents. It is also what
 * follows a job's transitions in the rest of the chat (`MachineHooks`): the
 * job machine knows nothing of events, subagents or tiers, and this is the
 * only code that ties them together.
 */
import type { JobRow } from "../../src/core/jobs/job";
import { Deletion } from "./deletion";
import { Announcer } from "./events/announcer";
import { ChatStream } from "./events/chat-stream";
import { JobProgress } from "./events/job-progress";
import { Outbox } from "./events/outbox";
import { SpanOutbox } from "./events/span-outbox";
import { closeBudget, ownsBudget } from "./jobs/budget-object";
import { wakeAnswer } from "./jobs/batch-answer";
import { Dispatcher } from "./jobs/dispatcher";
import { afterJobEnded } from "./gates";
import { FlowReturns, mayHoldFlowRoom } from "./gates/flow";
import { askApprovals } from "./gates/approval";
import { JobMachine, type MachineHooks } from "./jobs/job-machine";
import { Runners } from "./jobs/runners";
import { AWAIT_TAG, Waiters } from "./jobs/waiters";
import { Registration } from "./registration";
import { ChatStore } from "./storage/chat-store";
import { EVENT_TTL_MS, type JobEvent } from "./storage/events";
import { ChildTurns } from "./subagents/child-turns";
import { TreeCap } from "./subagents/tree-cap";

export class Chat implements MachineHooks {
  readonly store: ChatStore;
  readonly waiters: Waiters;
  readonly stream: ChatStream;
  readonly outbox: Outbox;
  readonly announce: Announcer;
  readonly spans: SpanOutbox;
  readonly machine: JobMachine;
  readonly runners: Runners;
  readonly dispatcher: Dispatcher;
  readonly tree: TreeCap;
  readonly child: ChildTurns;
  readonly registration: Registration;
  readonly deletion: Deletion;
  readonly #flowReturns: FlowReturns;

  constructor(ctx: DurableObjectState, env: () => Env) {
    this.store = new ChatStore(ctx, env);
    this.waiters = new Waiters(
      () => ctx.getWebSockets(AWAIT_TAG),
      (ids) => this.store.jobs.stillActive(ids),
      (ids, maxResultChars) => wakeAnswer(this.store, ids, maxResultChars),
    );
    this.stream = new ChatStream(this.store);
    this.outbox = new Outbox(this.store);
    this.announce = new Announcer(this.store, this.outbox, this.stream);
    this.spans = new SpanOutbox(this.store);
    this.machine = new JobMachine(this.store, this.waiters, this);
    this.runners = new Runners(this.store, this.machine, new JobProgress(this.store, this.announce, this.waiters));
    this.dispatcher = new Dispatcher(this.store, this.machine, this.runners);
    this.tree = new TreeCap(this.store);
    this.child = new ChildTurns(
      this.store,
      this.machine,
      this.dispatcher,
      this.tree,
      (jobs, now) => askApprovals(this.store, this.announce, jobs, now),
      this.spans,
    );
    this.registration = new Registration(this.store, this.stream);
    this.deletion = new Deletion(this.store, this.machine, this.registration);
    this.#flowReturns = new FlowReturns(this.store);
  }

  /**
   * A new instance starts on the current schema (a deploy may have brought a new one). Every duty
   * lives in `timers`: the one alarm is made to point at the earliest, whatever interrupted the
   * last instance between a write and its re-arm.
   */
  async resume(): Promise<void> {
    if (!this.store.exists()) return;
    this.store.ensure();
    const due = this.store.timers.next();
    const alarm = await this.store.ctx.storage.getAlarm();
    this.store.timers.alarmFound(alarm);
    if (due !== undefined && (alarm === null || alarm > due)) await this.store.timers.arm();
  }

  // ---- MachineHooks: what follows a job's transitions ---------------------------

  stopWork(job: JobRow): void {
    // A chat being deleted deletes its child chats itself: a stop sent to one already wiped would give it
    // storage again.
    this.store.ctx.waitUntil(this.store.beingDeleted() ? this.dispatcher.stopCall(job) : this.dispatcher.stopWork(job));
  }

  claimed(job: JobRow, now: number, started?: JobEvent): void {
    this.announce.jobStarted(job, now, started);
    this.child.progress(now);
  }

  /** After any job ends: its events, the gates whose jobs may now go, a turn waiting on it, retention. */
  ended(job: JobRow, now: number, finished?: JobEvent): void {
    const active = this.store.jobs.activeAround(job.batch_id);
    const batch = this.announce.jobEnded(job, now, active, finished);
    this.spans.jobEnded(job, batch);
    if (active.chat === 0) this.store.timers.chatWentIdle(now);
    if (job.tree_slot) {
      const { tenant, chat_id } = this.store.address();
      this.tree.jobEnded(job.tree_slot, tenant, chat_id);
    }
    afterJobEnded(this.store, job, active, now);
    // Its flow slots (or its place in a flow line) go back; one lost with the chat frees itself at this job's deadline.
    if (mayHoldFlowRoom(job)) this.#flowReturns.add(job);
    // The last job of the batch that owns a budget: the budget's storage may go. Looked at again after
    // the transaction that ended it, so a rolled-back end closes nothing.
    if (active.batch === 0 && job.budget && ownsBudget(job)) {
      const budget = job.budget;
      const over = () => this.store.exists() && this.store.jobs.activeAround(job.batch_id).batch === 0;
      this.store.ctx.waitUntil(Promise.resolve().then(() => (over() ? closeBudget(this.store, budget) : undefined)));
    }
    this.child.progress(now);
    this.child.wake(job.job_id, now);
    // The job that just ended, and the events it announced, expire from now on: the purge timer only
    // moves closer for them (what came earlier is covered by the time it already has, or at worst
    // by this one, one job duration late).
    this.store.timers.setEarliest(
      "purge",
      "",
      now + Math.min(this.store.limits().retention_seconds * 1000, EVENT_TTL_MS),
    );
  }
}
