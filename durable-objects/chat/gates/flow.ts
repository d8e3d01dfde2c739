/**
 * Room under the flow rules a call is under (docs/api.md#flow-control): the calls waiting here ask
 * the tenant's flow shards their keys fall in (`durable-objects/flow`), together (one request per shard), and
 * each starts when all its rules grant; at the first that does not, it gives back what it took and
 * waits there (or ends, when refused). When a slot frees, the flow object grants it outright to a
 * call under that one rule (`startGranted` starts it), or offers it to a call under several, whose
 * chat's gate timer asks again. Scope: the chat (`safety`: a periodic look, should a wake-up be lost).
 */
import { waitingAt, type JobFlow } from "../../../src/core/flow/job-flow";
import { lineId } from "../../../src/core/flow/shard";
import { GATES, isTerminal, type JobRow } from "../../../src/core/jobs/job";
import { askForRoom, giveBackRoom } from "../jobs/flow-objects";
import type { ChatStore } from "../storage/chat-store";
import { letGo, type Gate, type GateParts } from "./gate";

/** While calls wait for flow, the chat asks again at least this often. */
const FLOW_SAFETY_MS = 30_000;
/** Calls asked in one run (one request per flow shard they need, whatever their number). */
const ASKED_PER_RUN = 200;
/** With more calls to ask than one run takes, the next run comes this much later (not at once: no spin). */
const NEXT_RUN_MS = 1_000;

const flowOf = (job: Pick<JobRow, "flow">) => JSON.parse(job.flow!) as JobFlow;

/**
 * The calls of each chat being asked for right now: a run beside a batch's answer and one from the alarm
 * never ask for the same call at once.
 */
const beingAsked = new WeakMap<ChatStore, Set<string>>();

/**
 * Whether a job may hold room under flow rules: it is under some and got as far as the flow gate
 * (gates run in order, so one at an earlier gate never asked; one let go on to a later gate, or
 * started, holds its slots).
 */
export const mayHoldFlowRoom = (job: Pick<JobRow, "flow" | "waiting_for">): boolean =>
  job.flow !== null &&
  (job.waiting_for === null || GATES.reasons.indexOf(job.waiting_for) >= GATES.reasons.indexOf("flow"));

/**
 * What calls that ended had under the flow rules goes back together: the ends of one turn of the
 * chat's work (a runner's report of several outcomes) make one request per flow shard. It leaves
 * after the transaction that ended them, and only for jobs that did end (a rolled-back end keeps its slot).
 */
export class FlowReturns {
  #ended = new Map<string, JobFlow>();

  constructor(private readonly store: ChatStore) {}

  add(job: Pick<JobRow, "job_id" | "flow">): void {
    if (this.#ended.size === 0) this.store.ctx.waitUntil(Promise.resolve().then(() => this.#send()));
    this.#ended.set(job.job_id, flowOf(job));
  }

  #send(): Promise<void> {
    const all = [...this.#ended];
    this.#ended = new Map();
    let ended = all;
    try {
      ended = all.filter(([id]) => {
        const row = this.store.jobs.get(id);
        return !row || isTerminal(row.state);
      });
    } catch {
      // The chat's storage went meanwhile (its deletion): nothing of it runs any more, all goes back.
    }
    return giveBackRoom(
      this.store,
      ended.map(([id, flow]) => ({ id, flow })),
    );
  }
}

export const flowGate: Gate = {
  reason: "flow",
  // Flow objects wake the chat themselves when a slot frees: nothing here opens on a job's end.
  afterEnd: () => [],
  async open({ store, machine, dispatcher }, _scope, now) {
    const asking = beingAsked.get(store) ?? beingAsked.set(store, new Set()).get(store)!;
    // Calls not in any line yet first: those already waiting are woken by their flow objects.
    const waiting = store.jobs.waitingAt("flow").filter((j) => !asking.has(j.job_id));
    const asked = [
      ...waiting.filter((j) => flowOf(j).at === undefined),
      ...waiting.filter((j) => flowOf(j).at !== undefined),
    ].slice(0, ASKED_PER_RUN);
    for (const job of asked) asking.add(job.job_id);
    const start: string[] = [];
    const late: JobRow[] = [];
    let stillWaiting = waiting.length > asked.length;
    try {
      const outcomes = await askForRoom(
        store,
        asked.map((job) => ({ id: job.job_id, flow: flowOf(job), deadlineAt: job.deadline_at })),
      );
      store.transaction(() => {
        for (const job of asked) {
          const outcome = outcomes.get(job.job_id)!;
          const current = store.jobs.get(job.job_id);
          if (current?.state !== "pending" || current.waiting_for !== "flow" || current.deadline_at <= Date.now()) {
            // It ended (a cancel, its deadline) while its slots were asked for, or its deadline came:
            // whatever it got, a slot or a place in line, goes back (the deadline timer ends it). One
            // a grant let go meanwhile runs on the slot it holds.
            if (!current || isTerminal(current.state) || current.waiting_for === "flow") late.push(job);
            continue;
          }
          const flow = flowOf(job);
          if (outcome.outcome === "granted" && letGo(store, current, now)) start.push(job.job_id);
          else if (outcome.outcome === "waiting") {
            stillWaiting = true;
            // Where it waits, for its snapshot: written unless the row says so already.
            if (lineId(outcome.at) !== lineId(waitingAt(job.flow!)))
              store.jobs.setFlow(job.job_id, JSON.stringify({ ...flow, at: outcome.at }));
          } else if (outcome.outcome === "refused")
            machine.finish(current, { state: "error", error: outcome.message, error_type: "flow_rejected" }, now);
        }
        if (waiting.length > ASKED_PER_RUN) store.timers.set("gate", "flow", now + NEXT_RUN_MS);
        else {
          // Every call was asked: the backup of a batch's own ask has nothing left to do. A timer a
          // wake-up set due while this run asked stays: its offer came after this run's answers.
          store.timers.clearIfLater("gate", "flow", Date.now());
          if (stillWaiting) store.timers.set("gate", "flow:safety", now + FLOW_SAFETY_MS);
        }
      });
    } finally {
      for (const job of asked) asking.delete(job.job_id);
    }
    if (late.length)
      store.ctx.waitUntil(
        giveBackRoom(
          store,
          late.map((job) => ({ id: job.job_id, flow: flowOf(job) })),
        ),
      );
    await dispatcher.start(start);
  },
};

/**
 * A flow object granted these holders a freed slot outright (a call under one rule,
 * docs/architecture.md#flow-objects): the calls still waiting for it leave the gate now, without
 * asking again. A call for the `calls` queue or a built-in `wait` starts from here; any other would
 * open a call that reports back here, and a chain of grants would grow the call depth production
 * caps at 16, so it goes by its queue copy, whose consumer starts it (the dispatch watchdog covers a
 * copy lost). A call that ended meanwhile gave its room back when it ended; one past its deadline
 * gives it back when its timer ends it. True when a holder is no job here (a model request's: its
 * turn asks again).
 */
export async function startGranted(
  { store, dispatcher }: GateParts,
  ids: readonly string[],
  now: number,
): Promise<boolean> {
  let others = false;
  let released = 0;
  const start: string[] = [];
  const byCopy: string[] = [];
  store.transaction(() => {
    for (const id of ids) {
      const job = store.jobs.get(id);
      if (!job) others = true;
      else if (job.state === "pending" && job.waiting_for === "flow" && job.deadline_at > now) {
        const offChain = dispatcher.startsOffChain(job, now);
        released++;
        if (letGo(store, job, now)) (offChain ? start : byCopy).push(id);
      }
    }
    // The periodic look is for calls still in line: with none left, it would only wake the chat.
    if (released && store.jobs.waitingAt("flow").length === 0) store.timers.clear("gate", "flow:safety");
  });
  if (byCopy.length) store.ctx.waitUntil(dispatcher.send(byCopy.map((job_id) => ({ job_id, attempt: 1 }))));
  await dispatcher.start(start);
  return others;
}
