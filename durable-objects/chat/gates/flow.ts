/**
 * Room under the flow rules a call is under (docs/api.md#flow-control): the call asks the object of
 * each rule and key (`durable-objects/flow`), in rule-name order, and starts when all grant; at the
 * first that does not, it gives back what it took and waits there (or ends, when refused). A flow
 * object that frees a slot wakes the chat, whose gate timer asks again. Scope: the chat
 * (`safety`: a periodic look, should a wake-up be lost).
 */
import type { JobFlow } from "../../../src/flow/job-flow";
import type { JobRow } from "../../../src/jobs/job";
import { askForRoom, giveBackRoom } from "../jobs/flow-objects";
import type { ChatStore } from "../storage/chat-store";
import { letGo, type Gate } from "./gate";

/** While calls wait for flow, the chat asks again at least this often. */
const FLOW_SAFETY_MS = 30_000;
/** Calls asked in one run: each asks one object per rule, one after another. */
const ASKED_PER_RUN = 32;
/** With more calls to ask than one run takes, the next run comes this much later (not at once: no spin). */
const NEXT_RUN_MS = 1_000;

const flowOf = (job: Pick<JobRow, "flow">) => JSON.parse(job.flow!) as JobFlow;

/** A call under flow rules ended (or left the chat): each of its flow objects takes back what it had. */
export const giveBackFlow = (store: ChatStore, job: Pick<JobRow, "job_id" | "flow">) => giveBackRoom(store, flowOf(job), job.job_id);

export const flowGate: Gate = {
  reason: "flow",
  // Flow objects wake the chat themselves when a slot frees: nothing here opens on a job's end.
  afterEnd: () => [],
  async open({ store, machine, dispatcher }, _scope, now) {
    // Calls not in any line yet first: those already waiting are woken by their flow objects.
    const waiting = store.jobs.waitingAt("flow");
    const order = [...waiting.filter((j) => flowOf(j).at === undefined), ...waiting.filter((j) => flowOf(j).at !== undefined)];
    const start: string[] = [];
    for (const job of order.slice(0, ASKED_PER_RUN)) {
      const flow = flowOf(job);
      const outcome = await askForRoom(store, flow, job.job_id, job.deadline_at);
      const current = store.jobs.get(job.job_id);
      if (current?.state !== "pending" || current.waiting_for !== "flow" || current.deadline_at <= Date.now()) {
        // It ended (a cancel, its deadline) while its slots were asked for, or its deadline came:
        // whatever it got, a slot or a place in line, goes back (the deadline timer ends it).
        store.ctx.waitUntil(giveBackFlow(store, job));
        continue;
      }
      store.transaction(() => {
        if (outcome.outcome === "granted" && letGo(store, current, now)) start.push(job.job_id);
        else if (outcome.outcome === "waiting") store.jobs.setFlow(job.job_id, JSON.stringify({ ...flow, at: outcome.at }));
        else if (outcome.outcome === "refused") machine.finish(current, { state: "error", error: outcome.message }, now);
      });
    }
    if (waiting.length > ASKED_PER_RUN) store.timers.set("gate", "flow", now + NEXT_RUN_MS);
    else if (store.jobs.waitingAt("flow").length) store.timers.set("gate", "flow:safety", now + FLOW_SAFETY_MS);
    await dispatcher.start(start);
  },
};
