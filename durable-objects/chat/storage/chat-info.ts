/**
 * What `GET /v1/chats/{chat}` says of a chat (docs/api.md#chat-info-and-the-chat-list): its place in
 * the tree, its children with their running jobs, and when it last did something.
 */
import type { ChatInfo } from "../../../src/core/jobs/messages";
import type { ChatStore } from "./chat-store";

export function chatInfo(store: ChatStore): ChatInfo {
  const { chat_id } = store.address();
  const running = store.jobs.activeSubordinates();
  const level = store.level();
  const { active, waiting } = store.jobs.activeCounts();
  return {
    chat_id,
    parent_chat_id: store.meta("parent_chat_id") ?? null,
    level,
    name: store.meta("name") ?? chat_id,
    children: store.children.all().map((c) => ({
      chat_id: c.context_id,
      name: c.name,
      level: level + 1,
      running_jobs: running.filter((j) => j.context_id === c.context_id).length,
      waiting_jobs: running.filter((j) => j.context_id === c.context_id && j.state === "pending").length,
    })),
    running_jobs: active,
    waiting_jobs: waiting,
    last_activity: new Date(store.jobs.lastActivity() ?? Number(store.meta("created_at") ?? 0)).toISOString(),
  };
}
