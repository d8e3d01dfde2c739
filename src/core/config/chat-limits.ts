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
  | "tool_idle_seconds"
  | "spend"
  | "max_depth"
> & {
  /** Agent profiles with a no-progress limit of their own (`agents.<name>.idle_seconds`); travels to child chats. */
  agent_idle_seconds?: Record<string, number>;
  /**
   * Which chats' events go to `webhook.url` (docs/api.md#events-and-webhooks); travels with the limits down
   * to child chats.
   */
  webhooks: "none" | "top-level" | "all";
  /** `webhook.events`: the event types sent (to `webhook.url` and a batch's `callback_url`); absent: every type. */
  webhook_events?: string[];
};

/** Each profile's own idle limit, or undefined when none has one. */
function agentIdleSeconds(agents: TenantConfig["agents"]): Record<string, number> | undefined {
  const own = Object.entries(agents).flatMap(([name, a]) => (a.idle_seconds ? [[name, a.idle_seconds] as const] : []));
  return own.length ? Object.fromEntries(own) : undefined;
}

/**
 * How long a chat running `profile` may make no progress, and the setting that says so: the profile's
 * own `idle_seconds`, else the tenant's `limits.subagent_idle_seconds` (docs/api.md#the-agent-loop).
 */
export function idleLimitOf(
  limits: Partial<Pick<ChatLimits, "subagent_idle_seconds" | "agent_idle_seconds">>,
  profile: string,
): { seconds: number; setting: string } {
  const own = limits.agent_idle_seconds?.[profile];
  if (own !== undefined) return { seconds: own, setting: `agents.${profile}.idle_seconds` };
  return { seconds: limits.subagent_idle_seconds ?? 300, setting: "limits.subagent_idle_seconds" };
}

export const chatLimits = ({ limits, webhook, agents }: TenantConfig): ChatLimits => ({
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
  ...(limits.tool_idle_seconds ? { tool_idle_seconds: limits.tool_idle_seconds } : {}),
  ...optional("spend", limits.spend),
  ...optional("agent_idle_seconds", agentIdleSeconds(agents)),
  max_depth: limits.max_depth,
});

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
