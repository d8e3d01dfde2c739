/**
 * This chat's subagents as the admission rules see them, read from storage:
 * its depth, its children, which of them are busy, how many slots its running
 * subordinates hold and how many wait in its queue.
 */
import type { ChatStore } from "../storage/chat-store";
import type { SubordinateState } from "./subordinates";

/** This chat's tree root: itself, unless it is a child. */
export function rootOf(store: ChatStore, chatId: string): string {
  return (store.exists() ? store.meta("root_chat_id") : undefined) ?? chatId;
}

export function subordinateState(store: ChatStore): SubordinateState {
  const active = store.jobs.activeSubordinates();
  const running = active.filter((j) => j.waiting_for !== "subagent_slot");
  return {
    level: store.level(),
    children: store.children,
    busyContexts: new Set(active.flatMap((j) => (j.context_id ? [j.context_id] : []))),
    runningJobIds: running.map((j) => j.job_id),
    queued: active.length - running.length,
    forkContext: () => store.turns.forkContext(),
    rootChatId: rootOf(store, store.meta("chat_id")!),
  };
}
