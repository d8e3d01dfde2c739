import { describe, expect, it } from "vitest";
import type { ChildRow } from "../../durable-objects/chat/storage/children";
import { planSubordinates, type SubordinateState } from "../../durable-objects/chat/subagents/subordinates";
import { configSchema } from "../../src/core/config/schema";
import { jobSpec, type SubordinateJobSpec } from "../../src/core/jobs/job-spec";
import type { ChatLimits } from "../../src/core/config/chat-limits";
import { apiError } from "./fixtures";
import { PatternMeter } from "../../src/core/json-schema/linear-patterns";

const config = configSchema.parse({ agents: { researcher: {} } });
const limits: ChatLimits = { ...config.limits, webhooks: "none" };
const caller = { agent: "default", task_rules: [] };
const spec = (index: number, tool_name: string, tool_args: Record<string, unknown>) =>
  jobSpec(
    index,
    { tool_name, tool_args: tool_args as never },
    { config, agent: "default", available: [], patterns: new PatternMeter() },
  ) as SubordinateJobSpec;

function state(children: ChildRow[] = [], over: Partial<SubordinateState> = {}): SubordinateState {
  return {
    level: 0,
    children: {
      get: (id) => children.find((c) => c.context_id === id),
      latestDefault: () => children.filter((c) => c.tool === "call_subordinate").at(-1),
    },
    busyContexts: new Set(),
    runningJobIds: [],
    queued: 0,
    forkContext: () => "",
    rootChatId: "root",
    ...over,
  };
}

describe("planning subordinate calls", () => {
  it("gives fresh siblings distinct children at level + 1", () => {
    const plans = planSubordinates(
      [spec(0, "spawn_task", { task: "a" }), spec(1, "call_subordinate", { message: "b", reset: true })],
      state(),
      limits,
      caller,
    );
    expect(plans.get(0)!.context_id).not.toBe(plans.get(1)!.context_id);
    expect(plans.get(0)!.level).toBe(1);
  });

  it("continues the latest default child, and refuses a second such call in the same batch", () => {
    const kids: ChildRow[] = [{ context_id: "sub-a", tool: "call_subordinate", profile: "default", name: "a" }];
    expect(
      planSubordinates([spec(0, "call_subordinate", { message: "x" })], state(kids), limits, caller).get(0)!.context_id,
    ).toBe("sub-a");
    const e = apiError(() =>
      planSubordinates(
        [spec(0, "call_subordinate", { message: "x" }), spec(1, "call_subordinate", { message: "y" })],
        state(kids),
        limits,
        caller,
      ),
    );
    expect(e.message).toBe(
      "Subordinate context 'sub-a' is still running. Wait for it to finish or stop it before continuing it.",
    );
  });

  it("refuses a profile switch on continuation and checks permission against the child's own profile", () => {
    const kids: ChildRow[] = [{ context_id: "sub-r", tool: "call_subordinate", profile: "researcher", name: "r" }];
    const e = apiError(() =>
      planSubordinates(
        [spec(0, "call_subordinate", { message: "x", context_id: "sub-r", profile: "default" })],
        state(kids),
        limits,
        caller,
      ),
    );
    expect(e.message).toBe(
      "Subordinate already uses profile 'researcher'. Set reset=true and omit `context_id` to switch to 'default'.",
    );
    const denied = apiError(() =>
      planSubordinates([spec(0, "call_subordinate", { message: "x", context_id: "sub-r" })], state(kids), limits, {
        agent: "boss",
        task_rules: [["*", "deny"]],
      }),
    );
    expect(denied).toMatchObject({ status: 403, code: "agent_type_denied" });
  });

  it("refuses beyond max_depth", () => {
    expect(
      apiError(() => planSubordinates([spec(0, "spawn_task", { task: "a" })], state([], { level: 2 }), limits, caller))
        .message,
    ).toBe("A2 cannot start subordinates: limits.max_depth is 2.");
  });
});

describe("the tools a subordinate may use", () => {
  const tooled = configSchema.parse({
    tools: ["search", "fetch", "write"].map((name) => ({ name, url: `https://tools.example/${name}` })),
    agents: { researcher: { tools: ["search", "fetch"] } },
  });
  const bounded = (tool_args: Record<string, unknown>, toolBound?: string[], tool_name = "spawn_task") =>
    jobSpec(
      0,
      { tool_name, tool_args: tool_args as never },
      { config: tooled, agent: "default", available: [], toolBound, patterns: new PatternMeter() },
    ) as SubordinateJobSpec;

  it("are the profile's own when nothing binds the caller", () => {
    expect(bounded({ task: "t" }).sub.tools).toBeUndefined();
    expect(bounded({ task: "t", tools: ["write"] }).sub.tools).toEqual(["write"]);
  });

  it("inherit the caller's bound when the call names none, for spawn_task and call_subordinate alike", () => {
    expect(bounded({ task: "t" }, ["search"]).sub.tools).toEqual(["search"]);
    expect(bounded({ message: "m", reset: true }, ["search"], "call_subordinate").sub.tools).toEqual(["search"]);
  });

  it("refuse a subset wider than the caller's bound or the child's profile", () => {
    expect(apiError(() => bounded({ task: "t", tools: ["fetch"] }, ["search"])).message).toBe(
      "`tools` must be a subset of the 'default' profile's tools within this agent's own (search); not allowed: fetch.",
    );
    expect(
      apiError(() => bounded({ task: "t", agent: "researcher", tools: ["write"] }, ["search", "write"])).message,
    ).toBe(
      "`tools` must be a subset of the 'researcher' profile's tools within this agent's own (search); not allowed: write.",
    );
    expect(bounded({ task: "t", agent: "researcher", tools: ["search"] }, ["search", "write"]).sub.tools).toEqual([
      "search",
    ]);
  });
});

describe("a continued child's tools", () => {
  it("stay within what it had and what the continuation allows", async () => {
    const { narrowestTools } = await import("../../src/core/jobs/tool-bound");
    expect(narrowestTools(null, undefined)).toBeNull();
    expect(narrowestTools(null, ["a"])).toEqual(["a"]);
    expect(narrowestTools(["a", "b"], undefined)).toEqual(["a", "b"]);
    expect(narrowestTools(["a", "b"], ["b", "c"])).toEqual(["b"]);
  });
});
