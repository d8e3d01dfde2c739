/**
 * The gates a pending job may wait at before its call leaves (`waiting_for`,
 * docs/architecture.md#gates), one file each, and the two ways the rest of the chat meets them:
 * after a job ends, and when the `gate` timer fires (its ref: `<reason>` or `<reason>:<scope>`).
 * Their order, and which one a job waits at, is the list in src/core/gates/order.ts (see `./gate.ts`);
 * here each reason finds what opens its gate.
 */
import type { JobRow, WaitReason } from "../../../src/core/jobs/job";
import type { ChatStore } from "../storage/chat-store";
import type { ActiveCounts } from "../storage/job-columns";
import type { Gate, GateParts } from "./gate";
import { approvalGate } from "./approval";
import { budgetGate } from "./budget";
import { flowGate } from "./flow";
import { spendGate } from "./spend";
import { subagentSlotGate } from "./subagent-slot";
import { tierGate } from "./tier";

const BY_REASON: Record<WaitReason, Gate> = {
  tier: tierGate,
  subagent_slot: subagentSlotGate,
  approval: approvalGate,
  flow: flowGate,
  budget: budgetGate,
  spend: spendGate,
};

/** A job ended (in its transaction): each gate whose waiting jobs may now go gets its timer, due now. */
export function afterJobEnded(store: ChatStore, job: JobRow, active: ActiveCounts, now: number): void {
  for (const gate of Object.values(BY_REASON)) {
    for (const scope of gate.afterEnd(store, job, active))
      store.timers.set("gate", scope ? `${gate.reason}:${scope}` : gate.reason, now);
  }
}

/** A gate's jobs may go now (a slot came back from elsewhere): its timer, due now, if any wait there. */
export function mayOpen(store: ChatStore, reason: WaitReason, now: number): void {
  if (store.jobs.waitingAt(reason).length) store.timers.set("gate", reason, now);
}

/** The `gate` timer fired: its gate lets go of what may start now. A ref of no known gate is dropped. */
export async function openGate(parts: GateParts, ref: string, now: number): Promise<void> {
  const at = ref.indexOf(":");
  const reason = (at < 0 ? ref : ref.slice(0, at)) as WaitReason;
  await BY_REASON[reason]?.open(parts, at < 0 ? "" : ref.slice(at + 1), now);
}
