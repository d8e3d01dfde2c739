/**
 * Usage (docs/api.md#usage-and-cost): what a job, a batch, a chat or a subtree took,
 * in model requests and their tokens, tool calls and subagents, and in dollars when the tenant
 * gives prices. Pure: the chat sums it where work ends, and shows it rounded.
 */

/** Prices per million tokens (`llm.prices`, or an agent profile's `prices`). */
export interface Prices {
  input_per_million: number;
  output_per_million: number;
}

export interface Usage {
  llm_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Tool calls made (a job that started; a subagent's model requests are `llm_calls`). */
  tool_calls: number;
  subagents: number;
  /** Present once a priced model request is in the sum. */
  cost_usd?: number;
}

export const NO_USAGE: Usage = { llm_calls: 0, prompt_tokens: 0, completion_tokens: 0, tool_calls: 0, subagents: 0 };

/** The sum of `parts`; `cost_usd` when any part has one. */
export function addUsage(...parts: Partial<Usage>[]): Usage {
  const sum = { ...NO_USAGE };
  let cost: number | undefined;
  for (const u of parts) {
    sum.llm_calls += u.llm_calls ?? 0;
    sum.prompt_tokens += u.prompt_tokens ?? 0;
    sum.completion_tokens += u.completion_tokens ?? 0;
    sum.tool_calls += u.tool_calls ?? 0;
    sum.subagents += u.subagents ?? 0;
    if (u.cost_usd !== undefined) cost = (cost ?? 0) + u.cost_usd;
  }
  return cost === undefined ? sum : { ...sum, cost_usd: cost };
}

/** One model request: its tokens, and their price when there is one. */
export function modelRequest(
  tokens: { prompt_tokens: number; completion_tokens: number },
  prices: Prices | undefined,
): Usage {
  const usage = {
    ...NO_USAGE,
    llm_calls: 1,
    prompt_tokens: tokens.prompt_tokens,
    completion_tokens: tokens.completion_tokens,
  };
  if (!prices) return usage;
  return {
    ...usage,
    cost_usd:
      (tokens.prompt_tokens * prices.input_per_million + tokens.completion_tokens * prices.output_per_million) / 1e6,
  };
}

/** What a job's row says of its usage: a subordinate's report, and whether its call was ever tried (`attempt`). */
export type UsageOfJob = { usage: string | null; kind: "tool" | "subordinate"; attempt: number };

/**
 * A job's usage, its own and its subtree's: a subordinate's as its child chat reported it (it counts
 * itself as one subagent); a tool call's, one call once it was claimed (a call never made costs nothing).
 */
export function jobUsage(job: UsageOfJob): Usage {
  if (job.usage !== null) return addUsage(JSON.parse(job.usage) as Partial<Usage>);
  if (job.kind === "subordinate") return { ...NO_USAGE };
  return job.attempt > 0 ? { ...NO_USAGE, tool_calls: 1 } : { ...NO_USAGE };
}

/** As the API shows it: dollars to 6 decimals. */
export function shownUsage(usage: Usage): Usage {
  return usage.cost_usd === undefined ? usage : { ...usage, cost_usd: Math.round(usage.cost_usd * 1e6) / 1e6 };
}

/** A job's part of its chat's usage: the chat's own share (a subagent it started counts as one) and all of it. */
export function jobShares(job: UsageOfJob): { own: Usage; subtree: Usage } {
  const subtree = jobUsage(job);
  if (job.kind === "tool") return { own: subtree, subtree };
  return { own: { ...NO_USAGE, subagents: subtree.subagents > 0 ? 1 : 0 }, subtree };
}

/** Ended jobs' shares summed by the UTC day each ended. */
export function sharesByDay(jobs: (UsageOfJob & { completed_at: number | null })[]) {
  const days = new Map<string, { own: Usage; subtree: Usage }>();
  for (const job of jobs) {
    if (job.completed_at === null) continue;
    const day = new Date(job.completed_at).toISOString().slice(0, 10);
    const shares = jobShares(job);
    const sum = days.get(day);
    days.set(
      day,
      sum ? { own: addUsage(sum.own, shares.own), subtree: addUsage(sum.subtree, shares.subtree) } : shares,
    );
  }
  return days;
}
