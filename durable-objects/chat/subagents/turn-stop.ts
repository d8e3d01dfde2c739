/**
 * A turn is stopped by its parent (docs/api.md#child-chats): the job ended (cancelled, past its
 * deadline, its chat deleted). Everything the turn started is cancelled, every call it awaited is
 * answered, its model request (if out) becomes stale and gives back its room, and its timers go.
 */
import type { JobMachine } from "../jobs/job-machine";
import type { ChatStore } from "../storage/chat-store";
import { readMeta, writeMeta } from "../storage/schema";
import type { ModelAsks } from "./model-asks";
import { giveBackModelRoom } from "./model-room";

/** Who asks a child to stop a turn: its parent job, and the child chat's own address. */
export interface StopTurn {
  tenant: string;
  chat_id: string;
  parent_job_id: string;
  parent_chat_id: string;
}

/** A stop that arrives before the hand-off leaves a stopped turn, so the hand-off never starts one. */
export function stopTurn(store: ChatStore, machine: JobMachine, asks: ModelAsks, parent: StopTurn, now: number): void {
  const turn = store.turns.get(parent.parent_job_id);
  if (!turn) {
    // The hand-off has not arrived yet: leave a stopped turn so it never starts, purged like any chat.
    store.transaction(() => {
      if (readMeta(store.sql, "tenant") === undefined) writeMeta(store.sql, "tenant", parent.tenant);
      if (readMeta(store.sql, "chat_id") === undefined) writeMeta(store.sql, "chat_id", parent.chat_id);
      store.turns.begin({ ...parent, lease: "", deadline_at: now }, now);
      store.turns.update(parent.parent_job_id, { state: "stopped" }, now);
      store.schedulePurge(now);
    });
    return;
  }
  if (turn.state !== "running") return;
  for (const job of store.jobs.active()) machine.cancel(job.job_id, now);
  // Answer every call still awaited, so a continued conversation stays valid for the provider.
  for (const call of turn.awaiting ?? []) {
    store.turns.append(
      parent.parent_job_id,
      {
        role: "tool",
        tool_call_id: call.tool_call_id,
        content: "Error: the task was stopped before this call finished.",
      },
      now,
    );
  }
  store.turns.update(parent.parent_job_id, { state: "stopped", awaiting: null }, now);
  asks.forget();
  giveBackModelRoom(store);
  store.timers.clear("agent", parent.parent_job_id);
  store.timers.clear("idle", parent.parent_job_id);
  store.schedulePurge(now);
}
