/** The limits (and event policy) a ChatDO applies itself, taken from the tenant config per request. */
import type { Limits, TenantConfig } from "./schema";

export type ChatLimits = Pick<
  Limits,
  | "max_active_jobs_per_chat"
  | "max_result_chars"
  | "retention_seconds"
  | "max_stored_result_bytes"
  | "max_parallel_subagents"
  | "max_subagents_per_tree"
  | "on_subagent_limit"
  | "max_queued_subagents"
  | "subagent_idle_seconds"
  | "max_depth"
> & {
  /**
   * Which chats' events go to `webhook.url` (docs/api.md#events-and-webhooks); travels with the limits down
   * to child chats.
   */
  webhooks: "none" | "top-level" | "all";
  /** `webhook.events`: the event types sent (to `webhook.url` and a batch's `callback_url`); absent: every type. */
  webhook_events?: string[];
};

export const chatLimits = ({ limits, webhook }: TenantConfig): ChatLimits => ({
  webhooks: !webhook ? "none" : webhook.include_child_chats ? "all" : "top-level",
  ...(webhook?.events ? { webhook_events: webhook.events } : {}),
  max_active_jobs_per_chat: limits.max_active_jobs_per_chat,
  max_result_chars: limits.max_result_chars,
  retention_seconds: limits.retention_seconds,
  max_stored_result_bytes: limits.max_stored_result_bytes,
  max_parallel_subagents: limits.max_parallel_subagents,
  max_subagents_per_tree: limits.max_subagents_per_tree,
  on_subagent_limit: limits.on_subagent_limit,
  max_queued_subagents: limits.max_queued_subagents,
  subagent_idle_seconds: limits.subagent_idle_seconds,
  max_depth: limits.max_depth,
});
