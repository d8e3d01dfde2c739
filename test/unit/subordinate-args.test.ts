import { describe, expect, it } from "vitest";
import { parseCallSubordinate, parseSpawnTask } from "../../src/core/subagents/args";
import { apiError } from "./fixtures";

describe("call_subordinate arguments", () => {
  it("defaults to continuing the latest child (reset false)", () => {
    expect(parseCallSubordinate({ message: "Go" })).toMatchObject({
      mode: "latest",
      message: "Go",
      label: "Go",
      attachments: [],
    });
  });

  it("reset:true makes a fresh child; context_id continues one; aliases agent_id and agent_profile", () => {
    expect(parseCallSubordinate({ message: "Go", reset: "true" }).mode).toBe("fresh");
    expect(parseCallSubordinate({ message: "Go", agent_id: "sub-1", agent_profile: "r" })).toMatchObject({
      mode: "continue",
      context_id: "sub-1",
      profile: "r",
    });
  });

  it("names the child by `name`, else the first 80 characters of the message", () => {
    expect(parseCallSubordinate({ message: "x".repeat(100) }).label).toBe("x".repeat(80));
    expect(parseCallSubordinate({ message: "Go", name: "Scout" }).name).toBe("Scout");
  });

  it("refuses a missing message, context_id with reset, and attachments that are not URL strings", () => {
    expect(apiError(() => parseCallSubordinate({})).message).toBe("call_subordinate requires `tool_args.message`.");
    expect(apiError(() => parseCallSubordinate({ message: "Go", context_id: "sub-1", reset: true })).message).toBe(
      "`context_id` continues an existing subordinate and requires reset=false. Omit `context_id` to create a fresh subordinate.",
    );
    expect(apiError(() => parseCallSubordinate({ message: "Go", attachments: [1] })).code).toBe(
      "invalid_subordinate_call",
    );
  });
});

describe("spawn_task arguments", () => {
  it("labels a short task with itself and a long one with its first 30 characters and ...", () => {
    expect(parseSpawnTask({ task: "Short task" }).label).toBe("Short task");
    expect(parseSpawnTask({ task: "a".repeat(31) }).label).toBe(`${"a".repeat(30)}...`);
    expect(parseSpawnTask({ task: "a".repeat(40), label: "mine" }).label).toBe("mine");
  });

  it("always makes a fresh child, with agent as the profile", () => {
    expect(
      parseSpawnTask({ task: "t", agent: "researcher", context: "fork", tools: ["echo"], wait: "yes" }),
    ).toMatchObject({
      mode: "fresh",
      profile: "researcher",
      fork: true,
      tools: ["echo"],
      wait: true,
    });
  });

  it("refuses a missing task, skills, and an unknown context", () => {
    expect(apiError(() => parseSpawnTask({})).message).toBe("spawn_task requires `tool_args.task`.");
    expect(apiError(() => parseSpawnTask({ task: "t", skills: [] })).code).toBe("invalid_subordinate_call");
    expect(apiError(() => parseSpawnTask({ task: "t", context: "all" })).message).toBe(
      '`context` must be "fresh" or "fork".',
    );
  });
});
