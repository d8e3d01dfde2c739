import { describe, expect, it } from "vitest";
import { MAX_NAME_CHARS, overlongName, quoteName } from "../../src/core/calls/names";
import { callIdentity, InvalidToolCall, normalizeToolCall } from "../../src/core/calls/normalize-call";

describe("names", () => {
  it("quotes at most 64 characters of a name", () => {
    expect(quoteName("search")).toBe("search");
    expect(quoteName("x".repeat(64))).toBe("x".repeat(64));
    expect(quoteName("x".repeat(65))).toBe(`${"x".repeat(64)}…`);
  });

  it("says when a name is past 128 characters, and nothing for other values", () => {
    expect(overlongName("/agent", "a".repeat(MAX_NAME_CHARS))).toBeUndefined();
    expect(overlongName("/agent", 42)).toBeUndefined();
    expect(overlongName("/agent", "a".repeat(129))).toBe(
      `/agent is 129 characters long; a name is at most 128 ('${"a".repeat(64)}…')`,
    );
  });

  it("a call named past 128 characters is not a valid call, and its echoed name is cut to 128", () => {
    const item = { id: "c1", type: "function", function: { name: "n".repeat(1000), arguments: "{}" } };
    expect(() => normalizeToolCall(item)).toThrow(InvalidToolCall);
    expect(() => normalizeToolCall(item)).toThrow(
      /^Tool request tool_name is 1000 characters long; a name is at most 128/,
    );
    expect(callIdentity(item)).toEqual({ tool_call_id: "c1", name: "n".repeat(128) });
    expect(normalizeToolCall({ ...item, function: { name: "n".repeat(128), arguments: "{}" } }).tool_name).toHaveLength(
      128,
    );
  });
});
