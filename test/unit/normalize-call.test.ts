import { describe, expect, it } from "vitest";
import { cleanCopy, InvalidToolCall, normalizeToolCall } from "../../src/parallel/normalize-call";

function reason(item: unknown): string {
  try {
    normalizeToolCall(item);
  } catch (e) {
    if (e instanceof InvalidToolCall) return e.message;
    throw e;
  }
  throw new Error("expected InvalidToolCall");
}

/** Plain-prototype view of a result, so toEqual compares data only. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe("normalizeToolCall: accepted shapes", () => {
  it("reads Agent Zero {tool_name, tool_args}", () => {
    const call = normalizeToolCall({ tool_name: "search", tool_args: { q: "x" } });
    expect(call.tool_name).toBe("search");
    expect(plain(call.tool_args)).toEqual({ q: "x" });
  });

  it("reads {tool, args}", () => {
    const call = normalizeToolCall({ tool: "search", args: { q: "x" } });
    expect(call.tool_name).toBe("search");
    expect(plain(call.tool_args)).toEqual({ q: "x" });
  });

  it('reads {type:"function", name, parameters}', () => {
    const call = normalizeToolCall({ type: "function", name: "search", parameters: { q: "x" } });
    expect(call.tool_name).toBe("search");
    expect(plain(call.tool_args)).toEqual({ q: "x" });
  });

  it("reads an OpenAI tool call with JSON-string arguments", () => {
    const call = normalizeToolCall({
      id: "call_abc",
      type: "function",
      function: { name: "search", arguments: '{"q":"x","n":2}' },
    });
    expect(call.tool_name).toBe("search");
    expect(plain(call.tool_args)).toEqual({ q: "x", n: 2 });
  });

  it("reads an OpenAI tool call whose arguments are an empty string as no arguments", () => {
    const call = normalizeToolCall({ type: "function", function: { name: "search", arguments: "" } });
    expect(call.tool_name).toBe("search");
    expect(plain(call.tool_args)).toEqual({});
  });

  it("reads {name, arguments} with an object", () => {
    const call = normalizeToolCall({ name: "search", arguments: { q: "x" } });
    expect(call.tool_name).toBe("search");
    expect(plain(call.tool_args)).toEqual({ q: "x" });
  });

  it("reads {name, arguments} with a JSON string", () => {
    const call = normalizeToolCall({ name: "search", arguments: '{"q":"x"}' });
    expect(call.tool_name).toBe("search");
    expect(plain(call.tool_args)).toEqual({ q: "x" });
  });

  it('reads {name, arguments: ""} as empty arguments', () => {
    const call = normalizeToolCall({ name: "wait", arguments: "" });
    expect(call.tool_name).toBe("wait");
    expect(plain(call.tool_args)).toEqual({});
  });

  it("unwraps a one-call actions wrapper", () => {
    const call = normalizeToolCall({ actions: [{ tool_name: "search", tool_args: { q: "x" } }] });
    expect(call.tool_name).toBe("search");
    expect(plain(call.tool_args)).toEqual({ q: "x" });
  });

  it("unwraps an actions wrapper around another accepted shape", () => {
    const call = normalizeToolCall({ actions: [{ name: "search", arguments: '{"q":"y"}' }] });
    expect(call.tool_name).toBe("search");
    expect(plain(call.tool_args)).toEqual({ q: "y" });
  });

  it("ignores planning fields and returns only tool_name and tool_args", () => {
    const call = normalizeToolCall({
      thoughts: ["first I search"],
      headline: "Searching",
      id: "step-1",
      tool_name: "search",
      tool_args: { q: "x" },
    });
    expect(Object.keys(call)).toEqual(["tool_name", "tool_args"]);
    expect(plain(call)).toEqual({ tool_name: "search", tool_args: { q: "x" } });
  });
});

describe("normalizeToolCall: method and action", () => {
  it("splits a tool:method suffix into the tool name and tool_args.action", () => {
    const call = normalizeToolCall({ tool_name: "search_engine:search", tool_args: { q: "x" } });
    expect(call.tool_name).toBe("search_engine");
    expect(plain(call.tool_args)).toEqual({ q: "x", action: "search" });
  });

  it("keeps an explicit action over the tool:method suffix", () => {
    const call = normalizeToolCall({ tool_name: "search_engine:search", tool_args: { action: "news" } });
    expect(call.tool_name).toBe("search_engine");
    expect(call.tool_args.action).toBe("news");
  });

  it("applies the suffix to OpenAI-shaped calls too", () => {
    const call = normalizeToolCall({ type: "function", function: { name: "mail:send", arguments: "{}" } });
    expect(call.tool_name).toBe("mail");
    expect(call.tool_args.action).toBe("send");
  });

  it("copies method to action when no action is given", () => {
    const call = normalizeToolCall({ tool_name: "mail", tool_args: { method: "send", to: "a" } });
    expect(plain(call.tool_args)).toEqual({ method: "send", to: "a", action: "send" });
  });

  it("does not overwrite an explicit action with method", () => {
    const call = normalizeToolCall({ tool_name: "mail", tool_args: { method: "send", action: "draft" } });
    expect(call.tool_args.action).toBe("draft");
    expect(call.tool_args.method).toBe("send");
  });
});

describe("normalizeToolCall: item-level reasons", () => {
  it.each([["text"], [42], [null], [[{ tool_name: "a", tool_args: {} }]], [true]])(
    "refuses %j as not a dictionary",
    (item) => {
      expect(reason(item)).toBe("Tool request must be a dictionary");
    },
  );

  it.each([
    [{ actions: [] }],
    [{ actions: [{ tool_name: "a", tool_args: {} }, { tool_name: "b", tool_args: {} }] }],
    [{ actions: ["a"] }],
    [{ actions: { tool_name: "a", tool_args: {} } }],
    [{ actions: null }],
  ])("refuses the actions wrapper %j", (item) => {
    expect(reason(item)).toBe("Tool request actions wrapper must contain exactly one dictionary");
  });

  it.each([
    [{ tool_args: {} }],
    [{ tool_name: 5, tool_args: {} }],
    [{ tool_name: "", tool_args: {} }],
    [{ tool_name: ["search"], tool_args: {} }],
    [{ type: "function", function: { arguments: "{}" } }],
  ])("refuses %j for a missing or non-string tool name", (item) => {
    expect(reason(item)).toBe("Tool request must have a tool_name (type string) field");
  });

  it.each([
    [{ tool_name: "search" }],
    [{ tool_name: "search", tool_args: "q=x" }],
    [{ tool_name: "search", tool_args: ["x"] }],
    [{ tool_name: "search", tool_args: null }],
    [{ tool: "search", args: 3 }],
    [{ name: "search", arguments: "not json" }],
    [{ name: "search", arguments: "[1,2]" }],
    [{ name: "search", arguments: '"x"' }],
    [{ type: "function", function: { name: "search", arguments: "{bad" } }],
  ])("refuses %j for missing or non-dictionary arguments", (item) => {
    expect(reason(item)).toBe("Tool request must have a tool_args (type dictionary) field");
  });

  it.each(["search:", ":search", ":"])("refuses the method suffix %j without both tool and action", (name) => {
    expect(reason({ tool_name: name, tool_args: {} })).toBe("tool_name method suffix must include tool and action");
  });
});

describe("normalizeToolCall: prototype safety", () => {
  const parsed = JSON.parse(
    '{"tool_name":"search","tool_args":{"__proto__":{"polluted":true},"nested":{"__proto__":{"deep":1}},"list":[{"__proto__":{"x":1}}]}}',
  ) as unknown;

  it("keeps a __proto__ key as plain data in the arguments", () => {
    const call = normalizeToolCall(parsed);
    expect(Object.keys(call.tool_args)).toEqual(["__proto__", "nested", "list"]);
    expect(Object.getOwnPropertyDescriptor(call.tool_args, "__proto__")?.value).toMatchObject({ polluted: true });
    expect(JSON.stringify(call.tool_args)).toBe(
      '{"__proto__":{"polluted":true},"nested":{"__proto__":{"deep":1}},"list":[{"__proto__":{"x":1}}]}',
    );
  });

  it("does not change any prototype", () => {
    const call = normalizeToolCall(parsed);
    expect((call.tool_args as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("builds the arguments from null-prototype objects all the way down", () => {
    const call = normalizeToolCall(parsed);
    const args = call.tool_args as Record<string, unknown>;
    expect(Object.getPrototypeOf(args)).toBeNull();
    expect(Object.getPrototypeOf(args.nested)).toBeNull();
    const list = args.list as unknown[];
    expect(Array.isArray(list)).toBe(true);
    expect(Object.getPrototypeOf(list[0])).toBeNull();
  });

  it("copies the arguments instead of sharing the caller's objects", () => {
    const input = { tool_name: "search", tool_args: { opts: { n: 1 } } };
    const call = normalizeToolCall(input);
    input.tool_args.opts.n = 2;
    expect((call.tool_args.opts as Record<string, unknown>).n).toBe(1);
  });

  it("gives null-prototype arguments for JSON-string arguments too", () => {
    const call = normalizeToolCall({ name: "search", arguments: '{"__proto__":{"polluted":true}}' });
    expect(Object.getPrototypeOf(call.tool_args)).toBeNull();
    expect(Object.keys(call.tool_args)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("cleanCopy", () => {
  it("copies scalars as they are and arrays element by element", () => {
    expect(cleanCopy(5)).toBe(5);
    expect(cleanCopy("x")).toBe("x");
    expect(cleanCopy(null)).toBeNull();
    expect(cleanCopy([1, [2, "3"]])).toEqual([1, [2, "3"]]);
  });
});
