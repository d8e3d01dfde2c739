/** Which `batch.finished` moves a conversation on: the one that answers the calls it waits on. */
import { describe, expect, it } from "vitest";
import { sameCalls, type Message } from "../src/turn";

const asked = (...ids: string[]): Message => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "wait", arguments: "{}" } })),
});

describe("sameCalls", () => {
  it("matches the model message whose calls a batch answers, call for call", () => {
    expect(sameCalls(asked("call_a", "call_b"), asked("call_a", "call_b"))).toBe(true);
  });

  it("turns away a batch for other calls, an answered turn, and a message without calls", () => {
    expect(sameCalls(asked("call_a"), asked("call_b"))).toBe(false);
    expect(sameCalls(asked("call_a"), asked("call_a", "call_b"))).toBe(false);
    // Answered already: the conversation's last message is a tool message now.
    expect(sameCalls({ role: "tool", tool_call_id: "call_a", content: "ok" }, asked("call_a"))).toBe(false);
    expect(sameCalls({ role: "assistant", content: "hi" }, { role: "assistant", content: "hi" })).toBe(false);
    expect(sameCalls(undefined, asked("call_a"))).toBe(false);
  });
});
