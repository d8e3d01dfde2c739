/** Which `batch.finished` moves a conversation on: the one that answers the calls it waits on. */
import { describe, expect, it } from "vitest";
import { sameCalls, turnContext, type Message } from "../src/turn";

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

describe("turnContext", () => {
  const user = (text: string): Message => ({ role: "user", content: text });
  const answer = (id: string): Message => ({ role: "tool", tool_call_id: id, content: "x".repeat(20_000) });

  it("hands over the whole conversation while it fits", () => {
    const messages = [user("hi"), asked("call_a")];
    expect(turnContext(7, 1, messages)).toEqual({ telegram_chat_id: 7, steps: 1, messages });
  });

  it("keeps the newest messages that fit in 64 KiB, from a user's message, and always the calls", () => {
    const messages = [
      user("first"),
      asked("call_a"),
      answer("call_a"),
      answer("call_a"),
      user("second"),
      asked("call_b"),
      answer("call_b"),
      user("third"),
      asked("call_c"),
    ];
    const kept = turnContext(7, 2, messages).messages;
    expect(
      new TextEncoder().encode(JSON.stringify({ telegram_chat_id: 7, steps: 2, messages: kept })).length,
    ).toBeLessThan(65_536);
    expect(kept[0]).toEqual(user("second"));
    expect(kept.at(-1)).toEqual(asked("call_c"));
  });
});
