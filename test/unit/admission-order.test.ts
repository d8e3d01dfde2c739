/**
 * Tiered admission (`/tool-calls`, agent loops): call order, the caps call by call, queue or refuse, and a
 * `parallel` group admitted whole or not at all.
 */
import { describe, expect, it } from "vitest";
import { admitInOrder } from "../../durable-objects/chat/subagents/admit-in-order";
import type { ChildRow } from "../../durable-objects/chat/storage/children";
import { NEW_CHAT_STATE, type SubordinateState } from "../../durable-objects/chat/subagents/subordinates";
import { treeAllowance, UNLIMITED_TREE, type TreeAllowance } from "../../durable-objects/chat/storage/tree-slots";
import { chatLimits } from "../../src/core/config/chat-limits";
import { configSchema } from "../../src/core/config/schema";
import type { ApiError } from "../../src/core/http/errors";
import { jobSpec, type JobSpec } from "../../src/core/jobs/job-spec";
import type { Caller, ChatLimits } from "../../src/core/jobs/messages";
import { PatternMeter } from "../../src/core/json-schema/linear-patterns";

const config = configSchema.parse({ agents: { researcher: {} } });
const caller: Caller = { agent: "default", task_rules: [] };
const limits = (over: Partial<ChatLimits> = {}): ChatLimits => ({ ...chatLimits(config), ...over });

const tool = (index: number, over: Partial<JobSpec> = {}): JobSpec =>
  ({
    index,
    job_id: `echo-${index}`,
    tool_name: "echo",
    tool_args: "{}",
    kind: "tool",
    read_only: true,
    timeout_seconds: 600,
    ...over,
  }) as JobSpec;
const sub = (
  index: number,
  over: Partial<JobSpec> = {},
  tool_name = "spawn_task",
  tool_args: Record<string, unknown> = { task: `task ${index}` },
): JobSpec =>
  ({
    ...jobSpec(
      index,
      { tool_name, tool_args: tool_args as never },
      { config, agent: "default", available: [], patterns: new PatternMeter() },
    ),
    job_id: `sub-${index}`,
    ...over,
  }) as JobSpec;
/** A member of the `parallel` call at `group`. */
const inGroup = (group: number) => ({ group, concurrent: true });

const chat = (over: Partial<SubordinateState> = {}): SubordinateState => ({ ...NEW_CHAT_STATE("chat-1"), ...over });
const fullTree = (): TreeAllowance =>
  treeAllowance({ remote: false, slots: [], holders: [], expiresAt: 0, root: "chat-1", tenant: "acme" }, 1, () => [
    "other-sub",
  ]);

function admit(
  specs: JobSpec[],
  o: { state?: SubordinateState; active?: number; limits?: ChatLimits; tree?: TreeAllowance } = {},
) {
  return admitInOrder(specs, o.state ?? chat(), o.active ?? 0, o.limits ?? limits(), caller, o.tree ?? UNLIMITED_TREE);
}
const codes = (refusals: Map<number, ApiError>) =>
  Object.fromEntries([...refusals].map(([i, e]) => [i, `${e.status} ${e.code}`]));

describe("call order", () => {
  it("admits every call that fits, in call order, with a plan for each subordinate only", () => {
    const r = admit([tool(0), sub(1), tool(2), sub(3)]);
    expect(r.admitted.map((s) => s.job_id)).toEqual(["echo-0", "sub-1", "echo-2", "sub-3"]);
    expect([...r.plans.keys()]).toEqual([1, 3]);
    expect(r.plans.get(1)).toMatchObject({ level: 1, profile: "default", root_chat_id: "chat-1" });
    expect(r.plans.get(1)!.context_id).not.toBe(r.plans.get(3)!.context_id);
    expect(r.refusals.size).toBe(0);
    expect(r.queued.size).toBe(0);
  });

  it("threads the batch's own plans from call to call: a second continuation of the child the first one chose is refused", () => {
    // Two `call_subordinate` calls without `reset` both mean "the latest child": planned one at a
    // time, the second must see the child the first continued (or created) as busy.
    const kids: ChildRow[] = [{ context_id: "sub-old", tool: "call_subordinate", profile: "default", name: "old" }];
    const state = chat({
      children: { get: (id) => kids.find((k) => k.context_id === id), latestDefault: () => kids[0] },
    });
    const ask = (i: number) => sub(i, {}, "call_subordinate", { message: `m${i}` });
    const continued = admit([ask(0), ask(1)], { state });
    expect(continued.plans.get(0)!.context_id).toBe("sub-old");
    expect(continued.admitted.map((s) => s.index)).toEqual([0]);
    expect(continued.refusals.get(1)!.message).toBe(
      "Subordinate context 'sub-old' is still running. Wait for it to finish or stop it before continuing it.",
    );

    const created = admit([ask(0), ask(1)]);
    const first = created.plans.get(0)!.context_id;
    expect(created.refusals.get(1)!.message).toBe(
      `Subordinate context '${first}' is still running. Wait for it to finish or stop it before continuing it.`,
    );
  });

  it("lets an error that is not a refusal escape", () => {
    const state = chat({
      forkContext: () => {
        throw new TypeError("storage broke");
      },
    });
    expect(() => admit([tool(0), sub(1, {}, "spawn_task", { task: "t", context: "fork" })], { state })).toThrow(
      "storage broke",
    );
  });
});

describe("max_active_jobs_per_chat, call by call", () => {
  it("counts the calls admitted before each one: the first that does not fit is refused, and every later one", () => {
    const r = admit([tool(0), tool(1), tool(2), tool(3)], {
      active: 1,
      limits: limits({ max_active_jobs_per_chat: 3 }),
    });
    expect(r.admitted.map((s) => s.index)).toEqual([0, 1]);
    expect(codes(r.refusals)).toEqual({ 2: "429 job_limit", 3: "429 job_limit" });
    expect(r.refusals.get(2)!.details).toEqual({ running: 1, requested: 3, limit: 3 });
    expect(r.refusals.get(2)!.message).toBe("Chat already has 1 active jobs (limit 3); await or cancel some first.");
  });

  it("does not count a refused call: a later call that fits still runs", () => {
    const r = admit([sub(0), tool(1)], {
      active: 1,
      state: chat({ runningJobIds: ["sub-running"] }),
      limits: limits({ max_active_jobs_per_chat: 2, max_parallel_subagents: 1 }),
    });
    expect(codes(r.refusals)).toEqual({ 0: "429 subagent_limit" });
    expect(r.admitted.map((s) => s.index)).toEqual([1]);
  });
});

describe("the subagent caps: refuse or queue", () => {
  const busy = chat({ runningJobIds: ["sub-running"] });

  it("refuses a subordinate over max_parallel_subagents by default, naming the running ones", () => {
    const r = admit([sub(0), tool(1)], { state: busy, limits: limits({ max_parallel_subagents: 1 }) });
    expect(r.refusals.get(0)!.details).toMatchObject({
      scope: "chat",
      running: 1,
      limit: 1,
      requested: 1,
      running_job_ids: ["sub-running"],
    });
    expect(r.plans.size).toBe(0);
    expect(r.queued.size).toBe(0);
    expect(r.admitted.map((s) => s.index)).toEqual([1]);
  });

  it("with on_subagent_limit queue, admits it with its plan and puts it in the queue", () => {
    const r = admit([sub(0), sub(1)], {
      state: chat(),
      limits: limits({ max_parallel_subagents: 1, on_subagent_limit: "queue" }),
    });
    expect(r.admitted.map((s) => s.index)).toEqual([0, 1]);
    expect([...r.queued]).toEqual(["sub-1"]);
    expect([...r.plans.keys()]).toEqual([0, 1]);
  });

  it("refuses once the queue is full", () => {
    const r = admit([sub(0), sub(1)], {
      state: busy,
      limits: limits({ max_parallel_subagents: 1, on_subagent_limit: "queue", max_queued_subagents: 1 }),
    });
    expect([...r.queued]).toEqual(["sub-0"]);
    expect(r.refusals.get(1)!.details).toMatchObject({ scope: "queue", queued: 1, limit: 1 });
  });

  it("queues on a full tree in a top-level chat only: a child refuses, its ancestors may hold the tree", () => {
    const queueing = limits({ on_subagent_limit: "queue" });
    const top = admit([sub(0)], { state: chat({ level: 0 }), limits: queueing, tree: fullTree() });
    expect([...top.queued]).toEqual(["sub-0"]);
    const child = admit([sub(0)], { state: chat({ level: 1 }), limits: queueing, tree: fullTree() });
    expect(child.admitted).toEqual([]);
    expect(child.refusals.get(0)!.details).toMatchObject({ scope: "tree", running_job_ids: ["other-sub"] });
  });
});

describe("a parallel call's group", () => {
  it("is admitted whole when every member fits", () => {
    const r = admit([tool(0, inGroup(0)), sub(1, inGroup(0)), tool(2)]);
    expect(r.admitted.map((s) => s.index)).toEqual([0, 1, 2]);
    expect([...r.plans.keys()]).toEqual([1]);
  });

  it("is refused whole when one member is refused: every member gets that refusal and loses its plan; other calls still run", () => {
    const r = admit([sub(0, inGroup(0)), sub(1, inGroup(0)), tool(2, inGroup(0)), tool(3), tool(4, inGroup(5))], {
      limits: limits({ max_parallel_subagents: 1 }),
    });
    expect(r.admitted.map((s) => s.index)).toEqual([3, 4]);
    expect(codes(r.refusals)).toEqual({ 0: "429 subagent_limit", 1: "429 subagent_limit", 2: "429 subagent_limit" });
    // The refusal the group broke on, as is, for members that had none of their own.
    expect(r.refusals.get(0)).toBe(r.refusals.get(1));
    expect(r.refusals.get(2)).toBe(r.refusals.get(1));
    expect(r.plans.size).toBe(0);
  });

  it("keeps a member's own refusal, and gives the others the group's first", () => {
    const r = admit([sub(0, inGroup(0)), tool(1, inGroup(0)), tool(2, inGroup(0))], {
      state: chat({ runningJobIds: ["sub-running"] }),
      limits: limits({ max_parallel_subagents: 1, max_active_jobs_per_chat: 1 }),
    });
    expect(r.admitted).toEqual([]);
    expect(codes(r.refusals)).toEqual({ 0: "429 subagent_limit", 1: "429 subagent_limit", 2: "429 job_limit" });
    expect(r.refusals.get(1)).toBe(r.refusals.get(0));
  });

  it("takes a dropped member out of the queue, and leaves queued calls outside the group there", () => {
    const r = admit([sub(0), sub(1, inGroup(1)), tool(2, inGroup(1))], {
      state: chat({ runningJobIds: ["sub-running"] }),
      limits: limits({ max_parallel_subagents: 1, on_subagent_limit: "queue", max_active_jobs_per_chat: 2 }),
    });
    expect(r.admitted.map((s) => s.index)).toEqual([0]);
    expect([...r.queued]).toEqual(["sub-0"]);
    expect([...r.plans.keys()]).toEqual([0]);
    expect(codes(r.refusals)).toEqual({ 1: "429 job_limit", 2: "429 job_limit" });
  });

  it("breaks only its own group: a refusal in one group leaves another group whole", () => {
    const r = admit([tool(0, inGroup(0)), sub(1, inGroup(0)), sub(2, inGroup(2)), tool(3, inGroup(2))], {
      state: chat({ runningJobIds: ["sub-running"] }),
      limits: limits({ max_parallel_subagents: 2 }),
    });
    // sub-1 takes the last slot, so sub-2 is refused: group 2 falls, group 0 stands.
    expect(r.admitted.map((s) => s.index)).toEqual([0, 1]);
    expect([...r.refusals.keys()]).toEqual([2, 3]);
    expect([...r.plans.keys()]).toEqual([1]);
  });
});
