/**
 * When a child's turn is looked at again: the `agent` timer that re-drives a step, the idle rule
 * (docs/api.md#the-agent-loop) and the retry of a hand-back. In one place so the waits a turn can
 * be in read together, apart from the code that drives it (`./child-turns`).
 */
import type { ChatLimits } from "../../../src/core/jobs/messages";
import { askCheckAt, type ModelAsk } from "../../../src/core/runner/model-ask";
import { idleLimitOf } from "../../../src/core/config/chat-limits";
import { readLimits, readMeta } from "../storage/schema";
import type { Turn } from "../storage/turns";
import type { StepResult } from "./loop-host";

/** If a step's instance dies (an LLM call can take a while), the `agent` timer re-drives it after this. */
export const AGENT_STEP_SAFETY_MS = 150_000;
/** A turn whose model request waits for room under a flow rule asks again at least this often. */
const MODEL_ROOM_RETRY_MS = 30_000;
/** A hand-back the parent did not take is retried after this. */
export const REPORT_RETRY_MS = 5_000;

/** How long this child's turn may make no progress: its profile's `idle_seconds`, else the tenant's limit. */
export function idleLimit(sql: SqlStorage): { seconds: number; setting: string } {
  const limits: Partial<ChatLimits> = readLimits(sql) ?? {};
  return idleLimitOf(limits, readMeta(sql, "profile") ?? "default");
}

/**
 * When the idle timer looks at the turn again, or undefined when the turn has been idle too long.
 * `busy`: the turn awaits its own running jobs, which is not idle.
 */
export function idleRecheckAt(turn: Turn, busy: boolean, now: number, idleMs: number): number | undefined {
  if (busy || now < turn.progress_at + idleMs) return Math.max(now, turn.progress_at) + idleMs;
  return undefined;
}

/** The error a turn ended for its idleness carries. */
export const idleError = (limit: { seconds: number; setting: string }) =>
  `No progress for ${limit.seconds} s (${limit.setting}); the subagent was stopped.`;

/**
 * When the `agent` timer drives the turn next as it waits, or undefined for none: a turn waiting
 * on its jobs is woken by their ends. `ask`: the model request out while the step is `asking`.
 */
export function nextStepAt(result: StepResult, ask: ModelAsk | undefined, now: number): number | undefined {
  // Waiting for room under a flow rule is not idle: the turn asks again when woken, or at the latest then.
  if (result === "room") return now + MODEL_ROOM_RETRY_MS;
  if (ask) return askCheckAt(ask); // look again when it could have lapsed
  return undefined;
}
