/**
 * What a child chat's agent loop (`./agent-loop`) needs from the chat it runs in, and what a step
 * answers. A contract of its own so the loop can be driven by a fake host in tests, and read
 * without the chat's wiring (`./child-turns` is the real host).
 */
import type { LlmTarget } from "../../../src/core/agents/llm";
import type { TenantConfig } from "../../../src/core/config/schema";
import type { JobSpec } from "../../../src/core/jobs/job-spec";
import type { JobOutcome } from "../../../src/core/jobs/messages";
import type { ModelAsk } from "../../../src/core/runner/model-ask";
import type { Usage } from "../../../src/core/usage/usage";
import type { McpListings } from "../../../src/core/tools/mcp";
import type { JobStore } from "../storage/job-store";
import type { Turn, Turns } from "../storage/turns";
import type { TreeReservation } from "../storage/tree-slots";
import type { ChildIdentity } from "./step-calls";

export interface LoopHost {
  turns: Turns;
  jobs: JobStore;
  identity(): ChildIdentity;
  config(): Promise<TenantConfig>;
  llm(): Promise<LlmTarget | null>;
  /** ALLOW_PRIVATE_EGRESS, read at each claim of a model request: the egress rules apply to every send. */
  allowPrivateEgress(): boolean;
  /** The ask the turn's model request is out on, if any (docs/architecture.md#model-requests). */
  pendingAsk(turnId: string): ModelAsk | undefined;
  /** Sends the turn's model request to a Worker runner: a new ask, under a new lease. */
  ask(turn: Turn, now: number): Promise<void>;
  /** The request has its answer: the room it held under the flow rules goes back. */
  releaseModelRoom(): Promise<void>;
  /** The lists of the tenant's MCP servers (an unreachable one, never listed, is `unavailable`). */
  mcp(config: TenantConfig): Promise<McpListings>;
  /**
   * Admits one model message's calls as a tiered batch, inside the caller's
   * transaction, in call order: a call refused by a cap, a permission or the
   * depth gets its own error and the others still run.
   */
  admitCalls(
    turn: Turn,
    specs: JobSpec[],
    now: number,
    config: TenantConfig,
    tree: TreeReservation,
  ): { jobIds: Map<number, string>; errors: Map<number, string> };
  /** Reserves per-tree cap slots for the step's subordinates (an RPC to the root, before the transaction). */
  reserveTree(specs: JobSpec[], now: number, config: TenantConfig): Promise<TreeReservation>;
  releaseTree(tree: TreeReservation): void;
  transaction<T>(fn: () => T): T;
  /** Whether the turn may take its next action: it is still running and its chat is not being deleted. */
  running(turnId: string): boolean;
  /** The model replied: progress for the idle rule. */
  progress(now: number): void;
  /**
   * A model request's usage (the request of the turn's `step`): the chat's usage by day, and the budget of
   * the batch that started the turn.
   */
  modelUsed(now: number, usage: Usage, step: string): Promise<void>;
  /**
   * The model request of the turn's `step` ended with no answer (it failed, or never left after the budget
   * let it go): the budget no longer counts it in flight.
   */
  modelUnanswered(step: string): Promise<void>;
  /**
   * Whether the budget of the batch that started the turn (if any) and the tenant's spending limit (if any)
   * let the model request of the turn's `step` go; if not, the sentence the turn ends with.
   */
  budgetAllows(step: string): Promise<{ ok: true } | { ok: false; error: string }>;
  /**
   * Room for the turn's next model request under the flow rules on `llm` (docs/api.md#flow-control):
   * granted (give it back once the request ends), waiting (the chat is woken when there is room) or refused.
   */
  modelRoom(
    turn: Turn,
    config: TenantConfig,
  ): Promise<
    | { outcome: "granted"; release: () => Promise<void> }
    | { outcome: "waiting" }
    | { outcome: "refused"; message: string }
  >;
  /** Ends the turn and hands the outcome back to the parent. */
  finish(turn: Turn, outcome: JobOutcome): Promise<void>;
}

/**
 * `room`: the model request waits for room under a flow rule (not idle time: the turn asks again).
 * `asking`: a Worker runner has the model request; its reply comes back through `takeReply`.
 */
export type StepResult = "waiting" | "room" | "asking" | "again" | "finished";
