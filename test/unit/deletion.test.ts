/** The plan of a chat's deletion (docs/api.md#deleting-a-chat): what is left to do, and when the alarm tries again. */
import { describe, expect, it } from "vitest";
import { retryDelayMs, startingState } from "../../durable-objects/chat/deletion";

describe("a chat's deletion", () => {
  it("tells the parent only when the chat was deleted on its own; the index always forgets the subtree", () => {
    const usage = {
      "callsubordin-x": { llm_calls: 2, prompt_tokens: 20, completion_tokens: 10, tool_calls: 1, subagents: 1 },
    };
    expect(startingState("request", true, usage)).toEqual({
      by: "request",
      left: ["index", "parent"],
      usage,
      retries: 0,
    });
    expect(startingState("request", false, {}).left).toEqual(["index"]);
    // Deleted by its parent's own deletion: that parent ended its jobs before asking.
    expect(startingState("parent", true, usage).left).toEqual(["index"]);
  });

  it("tries again after 1 s, doubling, at most once a minute", () => {
    expect([0, 1, 2, 5, 6, 20].map(retryDelayMs)).toEqual([1_000, 2_000, 4_000, 32_000, 60_000, 60_000]);
  });
});
