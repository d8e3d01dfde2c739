/** The subagent caps at admission (docs/api.md#caps-permissions-and-depth): start, queue (opt-in) or refuse. */
import { describe, expect, it } from "vitest";
import { chatLimits } from "../../src/core/config/chat-limits";
import { defaultConfig } from "../../src/core/config/schema";
import type { ChatLimits } from "../../src/core/jobs/messages";
import { admitBatch, SubagentCap, type CapState } from "../../durable-objects/chat/subagents/subagent-cap";
import { treeAllowance, UNLIMITED_TREE } from "../../durable-objects/chat/storage/tree-slots";
import { apiError } from "./fixtures";

const limits = (over: Partial<ChatLimits> = {}): ChatLimits => ({
  ...chatLimits(defaultConfig()),
  max_parallel_subagents: 2,
  ...over,
});
const cap = (over: Partial<CapState> = {}): CapState => ({
  running: [],
  queued: 0,
  tree: UNLIMITED_TREE,
  limits: limits(),
  queueOnTree: true,
  ...over,
});
const queueing = (over: Partial<ChatLimits> = {}) =>
  limits({ on_subagent_limit: "queue", max_queued_subagents: 2, ...over });
const rootTree = (holders: string[], limit: number) =>
  treeAllowance({ remote: false, slots: [], holders: [], expiresAt: 0, root: "r", tenant: "t" }, limit, () => holders);

describe("a whole batch (parallel, spawn)", () => {
  it("starts everything that fits", () => {
    expect(admitBatch(["a", "b"], cap())).toEqual(new Set());
  });

  it("refuses the whole batch over the chat cap, naming the running jobs", () => {
    const e = apiError(() => admitBatch(["a", "b"], cap({ running: ["r1"] })));
    expect(e.message).toBe(
      "Subagent limit reached (1 running + 2 requested > 2); wait for running subagents or split the batch.",
    );
    expect(e.details).toEqual({ scope: "chat", running: 1, limit: 2, requested: 2, running_job_ids: ["r1"] });
  });

  it("refuses over the tree cap with scope tree when the chat has room", () => {
    const e = apiError(() => admitBatch(["a"], cap({ tree: rootTree(["x1", "x2"], 2) })));
    expect(e.details).toMatchObject({ scope: "tree", running: 2, requested: 1, running_job_ids: ["x1", "x2"] });
  });

  it("with on_subagent_limit queue, queues the excess in call order", () => {
    expect(admitBatch(["a", "b", "c", "d"], cap({ limits: queueing(), running: [] }))).toEqual(new Set(["c", "d"]));
    expect(admitBatch(["a", "b"], cap({ limits: queueing(), tree: rootTree(["x1"], 2) }))).toEqual(new Set(["b"]));
  });

  it("a child chat never queues on the tree cap: its ancestors may be the ones holding the tree", () => {
    const e = apiError(() =>
      admitBatch(["a"], cap({ limits: queueing(), tree: rootTree(["x1", "x2"], 2), queueOnTree: false })),
    );
    expect(e.details).toMatchObject({ scope: "tree" });
    expect(admitBatch(["a", "b", "c"], cap({ limits: queueing(), queueOnTree: false }))).toEqual(new Set(["c"]));
  });

  it("queues behind jobs already waiting, even when a slot looks free", () => {
    expect(admitBatch(["a"], cap({ limits: queueing(), queued: 1 }))).toEqual(new Set(["a"]));
  });

  it("refuses when the queue would overflow max_queued_subagents", () => {
    const e = apiError(() => admitBatch(["a", "b", "c", "d", "e"], cap({ limits: queueing() })));
    expect(e.message).toBe(
      "Subagent queue is full (0 queued + 3 requested > 2, limits.max_queued_subagents); wait for running subagents or split the batch.",
    );
    expect(e.details).toMatchObject({ scope: "queue", queued: 0, requested: 3, limit: 2 });
  });
});

describe("call by call (tool-calls, agent loops)", () => {
  it("refuses only the call over the cap, counting those started before it", () => {
    const c = new SubagentCap(cap({ running: ["r1"] }));
    expect(c.admit("a")).toBe("start");
    const e = apiError(() => c.admit("b"));
    expect(e.details).toMatchObject({ scope: "chat", running: 2, requested: 1, running_job_ids: ["r1", "a"] });
  });

  it("queues instead, up to max_queued_subagents", () => {
    const c = new SubagentCap(cap({ limits: queueing({ max_queued_subagents: 1 }), running: ["r1", "r2"] }));
    expect(c.admit("a")).toBe("queue");
    expect(apiError(() => c.admit("b")).details).toMatchObject({ scope: "queue", queued: 1 });
  });

  it("a child refuses the call over the tree cap even when queueing", () => {
    const c = new SubagentCap(cap({ limits: queueing(), tree: rootTree(["x1", "x2"], 2), queueOnTree: false }));
    expect(apiError(() => c.admit("a")).details).toMatchObject({ scope: "tree" });
  });

  it("a remote tree grant decides per job id", () => {
    const tree = treeAllowance(
      { remote: true, slots: ["b"], holders: ["h"], expiresAt: 0, root: "r", tenant: "t" },
      2,
      () => [],
    );
    const c = new SubagentCap(cap({ tree }));
    expect(apiError(() => c.admit("a")).details).toMatchObject({ scope: "tree", running_job_ids: ["h"] });
    expect(c.admit("b")).toBe("start");
  });
});
