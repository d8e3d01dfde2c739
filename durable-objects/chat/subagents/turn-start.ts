/**
 * A turn begins in a child chat (docs/api.md#child-chats): the hand-over from the parent's
 * subordinate job writes who the child is (its lineage, profile, limits, tools) and the task as the
 * conversation's next user message, and sets the `agent` timer that drives the loop.
 */
import { idleLimitOf } from "../../../src/core/config/chat-limits";
import type { TurnRequest } from "../../../src/core/jobs/messages";
import { narrowestTools } from "../../../src/core/jobs/tool-bound";
import type { ChatStore } from "../storage/chat-store";
import { readMeta, writeMeta } from "../storage/schema";

/** Idempotent per parent job: a hand-over delivered twice starts one turn. */
export function beginTurn(store: ChatStore, req: TurnRequest, now: number): "started" | "duplicate" | "expired" {
  // A stopped turn leaves its row behind, so a hand-off still in flight when the parent ended the job starts nothing.
  if (store.turns.get(req.parent_job_id)) return "duplicate";
  if (now >= req.deadline_at) return "expired";
  store.transaction(() => {
    writeMeta(store.sql, "tenant", req.tenant);
    writeMeta(store.sql, "chat_id", req.chat_id);
    if (store.meta("parent_chat_id") !== req.parent_chat_id || store.meta("root_chat_id") !== req.root_chat_id) {
      store.events.beforeLineageChange(now);
    }
    writeMeta(store.sql, "parent_chat_id", req.parent_chat_id);
    writeMeta(store.sql, "root_chat_id", req.root_chat_id);
    writeMeta(store.sql, "level", String(req.level));
    writeMeta(store.sql, "profile", req.profile);
    writeMeta(store.sql, "name", req.name);
    writeMeta(store.sql, "limits", JSON.stringify(req.limits));
    writeMeta(store.sql, "metadata", req.metadata ?? "");
    writeMeta(store.sql, "budget", req.budget ?? "");
    // The turn's trace (its parent job's context); an untraced chat never writes the key.
    if (req.trace || readMeta(store.sql, "trace")) writeMeta(store.sql, "trace", req.trace ?? "");
    // A continued child keeps the subset it was started with: a continuation narrows it, never widens it.
    writeMeta(
      store.sql,
      "tools",
      JSON.stringify(narrowestTools(JSON.parse(readMeta(store.sql, "tools") ?? "null"), req.tools)),
    );
    if (readMeta(store.sql, "created_at") === undefined) writeMeta(store.sql, "created_at", String(now));
    store.turns.begin(req, now);
    const lines = [
      ...(req.forked ? [`Context from the agent that started you:\n${req.forked}\n`] : []),
      req.message,
      ...req.attachments.map((url) => `Attachment: ${url}`),
    ];
    store.turns.append(req.parent_job_id, { role: "user", content: lines.join("\n") }, now);
    store.timers.set("agent", req.parent_job_id, now);
    store.timers.set("idle", req.parent_job_id, now + idleLimitOf(req.limits, req.profile).seconds * 1000);
  });
  return "started";
}
