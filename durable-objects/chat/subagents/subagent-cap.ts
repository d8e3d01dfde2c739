/**
 * The subagent caps at admission (docs/api.md#caps-permissions-and-depth): which new subordinates start
 * now, which wait in the chat's queue (opt-in `on_subagent_limit: "queue"`),
 * and the 429 otherwise. Pure and synchronous: the ChatDO runs it in the same
 * step as the inserts, so two concurrent requests can never both pass.
 */
import { ApiError } from "../../../src/core/http/errors";
import type { ChatLimits } from "../../../src/core/jobs/messages";
import type { TreeAllowance } from "../storage/tree-slots";

export interface CapState {
  /** This chat's subordinate jobs holding a slot (active and not queued). */
  running: string[];
  /** Subordinates already waiting in this chat's queue. */
  queued: number;
  tree: TreeAllowance;
  limits: ChatLimits;
  /**
   * Only a top-level chat queues on the tree cap. A child's own job holds a
   * tree slot while its turn waits, so a child queued behind the tree could
   * wait on its own ancestors: there the tree cap always refuses.
   */
  queueOnTree: boolean;
}

type LimitScope = "chat" | "tree" | "queue";

/**
 * The one 429 `subagent_limit`: `running` are the jobs holding the slots of `scope` (this chat's,
 * or the tree's), `queued` the subordinates already waiting when the queue is what is full.
 */
export function subagentLimit(
  scope: LimitScope,
  running: string[],
  requested: number,
  limit: number,
  queued = 0,
): ApiError {
  const count =
    scope === "queue"
      ? `${queued} queued + ${requested} requested > ${limit}, limits.max_queued_subagents`
      : `${running.length} running + ${requested} requested > ${limit}`;
  const what = scope === "queue" ? "Subagent queue is full" : "Subagent limit reached";
  return new ApiError(429, "subagent_limit", `${what} (${count}); wait for running subagents or split the batch.`, {
    scope,
    running: running.length,
    ...(scope === "queue" ? { queued } : {}),
    limit,
    requested,
    running_job_ids: running,
  });
}

const queueing = (s: CapState) => s.limits.on_subagent_limit === "queue";

/** A whole batch (`/parallel`, `/spawn`): the ids that must wait in the queue, or the refusal of the batch. */
export function admitBatch(jobIds: string[], s: CapState): Set<string> {
  const n = jobIds.length;
  const limit = s.limits.max_parallel_subagents;
  // Queued subordinates start in order: while some wait, new ones wait behind them.
  const chatFree = Math.min(n, queueing(s) && s.queued > 0 ? 0 : Math.max(0, limit - s.running.length));
  let start = 0;
  while (start < chatFree && s.tree.grants(jobIds[start]!, start)) start++;
  if (start === n) return new Set();
  const treeFull = start < chatFree;
  if (!queueing(s) || (treeFull && !s.queueOnTree)) {
    if (s.running.length + n > limit) throw subagentLimit("chat", s.running, n, limit);
    throw subagentLimit("tree", s.tree.holders, n, s.tree.limit);
  }
  const waiting = jobIds.slice(start);
  if (s.queued + waiting.length > s.limits.max_queued_subagents)
    throw subagentLimit("queue", s.running, waiting.length, s.limits.max_queued_subagents, s.queued);
  return new Set(waiting);
}

/**
 * Tiered paths (`/tool-calls`, agent loops): one subordinate at a time, in call order; a refusal is that
 * call's alone.
 */
export class SubagentCap {
  readonly #started: string[] = [];
  #queued = 0;

  constructor(private readonly s: CapState) {}

  /** Throws the call's refusal. */
  admit(jobId: string): "start" | "queue" {
    const { running, tree, limits } = this.s;
    const queued = this.s.queued + this.#queued;
    const chatFull = running.length + this.#started.length >= limits.max_parallel_subagents;
    if (!chatFull && !(queueing(this.s) && queued > 0)) {
      if (tree.grants(jobId, this.#started.length)) {
        this.#started.push(jobId);
        return "start";
      }
      if (!queueing(this.s) || !this.s.queueOnTree)
        throw subagentLimit("tree", [...tree.holders, ...this.#started], 1, tree.limit);
    } else if (!queueing(this.s)) {
      throw subagentLimit("chat", [...running, ...this.#started], 1, limits.max_parallel_subagents);
    }
    if (queued >= limits.max_queued_subagents)
      throw subagentLimit("queue", [...running, ...this.#started], 1, limits.max_queued_subagents, queued);
    this.#queued++;
    return "queue";
  }
}
