import type Anthropic from "@anthropic-ai/sdk";
import type { LanguageModelV4ToolCall } from "@ai-sdk/provider";
import type { FunctionCall, Part } from "@google/genai";
import type { ToolCallPart } from "ai";
import { describe, expect, it } from "vitest";
import { callIdentity, InvalidToolCall, normalizeToolCall } from "../../src/core/calls/normalize-call";
import { cleanCopy } from "../../src/core/util/json";

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

  it("ignores planning fields (an Agent Zero `id` among them) and returns only tool_name and tool_args", () => {
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

// The fixtures below are typed with the SDKs' own types, so they are the objects a bot gets from them.
describe("normalizeToolCall: provider and SDK shapes, with the call's own id", () => {
  it("reads an Anthropic tool_use block and keeps its id", () => {
    const block = {
      type: "tool_use",
      id: "toolu_01A09q90qw90lq917835lq9",
      name: "search",
      input: { q: "x" },
      caller: { type: "direct" },
    } satisfies Anthropic.ToolUseBlock;
    const call = normalizeToolCall(block);
    expect(plain(call)).toEqual({
      tool_name: "search",
      tool_args: { q: "x" },
      tool_call_id: "toolu_01A09q90qw90lq917835lq9",
    });
  });

  it("reads an AI SDK tool call and keeps its toolCallId", () => {
    const part = {
      type: "tool-call",
      toolCallId: "call_aisdk_1",
      toolName: "search",
      input: { q: "x" },
    } satisfies ToolCallPart;
    expect(plain(normalizeToolCall(part))).toEqual({
      tool_name: "search",
      tool_args: { q: "x" },
      tool_call_id: "call_aisdk_1",
    });
  });

  it("reads an AI SDK tool call without its type", () => {
    const call = normalizeToolCall({ toolCallId: "c1", toolName: "search", input: { q: "x" } });
    expect(plain(call)).toEqual({ tool_name: "search", tool_args: { q: "x" }, tool_call_id: "c1" });
  });

  it("reads the AI SDK's provider-level tool call, whose input is JSON text", () => {
    const raw = {
      type: "tool-call",
      toolCallId: "c2",
      toolName: "search",
      input: '{"q":"x"}',
    } satisfies LanguageModelV4ToolCall;
    expect(plain(normalizeToolCall(raw))).toEqual({ tool_name: "search", tool_args: { q: "x" }, tool_call_id: "c2" });
  });

  it("reads older AI SDK calls that name the arguments args, as an object or JSON text", () => {
    expect(
      plain(normalizeToolCall({ type: "tool-call", toolCallId: "c3", toolName: "search", args: { q: "x" } })),
    ).toEqual({
      tool_name: "search",
      tool_args: { q: "x" },
      tool_call_id: "c3",
    });
    expect(plain(normalizeToolCall({ toolCallId: "c4", toolName: "search", args: '{"q":"y"}' }).tool_args)).toEqual({
      q: "y",
    });
  });

  it("reads a Gemini functionCall part and keeps the id Gemini gives", () => {
    const part = { functionCall: { name: "search", args: { q: "x" }, id: "gem-1" } } satisfies Part;
    expect(plain(normalizeToolCall(part))).toEqual({
      tool_name: "search",
      tool_args: { q: "x" },
      tool_call_id: "gem-1",
    });
  });

  it("reads a Gemini function_call part (the Python SDK's spelling) without an id", () => {
    const call = normalizeToolCall({ function_call: { name: "search", args: { q: "x" } } });
    expect(plain(call)).toEqual({ tool_name: "search", tool_args: { q: "x" } });
  });

  it("reads a Gemini call to a function without parameters, which has no args, as empty arguments", () => {
    const part = { functionCall: { name: "wait" } } satisfies Part;
    expect(plain(normalizeToolCall(part))).toEqual({ tool_name: "wait", tool_args: {} });
  });

  it("reads the calls @google/genai's response.functionCalls returns ({name, args, id})", () => {
    const fc = { name: "search", args: { q: "x" }, id: "gem-2" } satisfies FunctionCall;
    expect(plain(normalizeToolCall(fc))).toEqual({ tool_name: "search", tool_args: { q: "x" }, tool_call_id: "gem-2" });
  });

  it("keeps the id of an OpenAI tool call and of {id, name, arguments}", () => {
    expect(
      normalizeToolCall({ id: "call_abc", type: "function", function: { name: "search", arguments: "{}" } })
        .tool_call_id,
    ).toBe("call_abc");
    expect(normalizeToolCall({ id: "call_def", name: "search", arguments: {} }).tool_call_id).toBe("call_def");
  });

  it("keeps the call_id of an OpenAI Responses function_call item, not its item id", () => {
    const item = { type: "function_call", id: "fc_1", call_id: "call_1", name: "search", arguments: '{"q":"x"}' };
    expect(normalizeToolCall(item).tool_call_id).toBe("call_1");
  });

  it("keeps an explicit tool_call_id on any shape, Agent Zero's included", () => {
    expect(normalizeToolCall({ tool_name: "search", tool_args: {}, tool_call_id: "mine-1" }).tool_call_id).toBe(
      "mine-1",
    );
    expect(normalizeToolCall({ tool: "search", args: {}, tool_call_id: "mine-2" }).tool_call_id).toBe("mine-2");
  });

  it("prefers tool_call_id, then toolCallId, then id", () => {
    expect(
      normalizeToolCall({ tool_call_id: "a", toolCallId: "b", id: "c", name: "s", arguments: {} }).tool_call_id,
    ).toBe("a");
    expect(normalizeToolCall({ toolCallId: "b", id: "c", toolName: "s", input: {} }).tool_call_id).toBe("b");
  });

  it("reads the id of the call inside an actions wrapper, else the wrapper's tool_call_id", () => {
    expect(
      normalizeToolCall({ actions: [{ type: "tool_use", id: "toolu_in", name: "s", input: {} }] }).tool_call_id,
    ).toBe("toolu_in");
    expect(
      normalizeToolCall({ tool_call_id: "outer", actions: [{ tool_name: "s", tool_args: {} }] }).tool_call_id,
    ).toBe("outer");
  });

  it("applies the tool:method suffix to AI SDK and Anthropic names too", () => {
    expect(plain(normalizeToolCall({ toolCallId: "c", toolName: "mail:send", input: {} }))).toEqual({
      tool_name: "mail",
      tool_args: { action: "send" },
      tool_call_id: "c",
    });
    expect(normalizeToolCall({ type: "tool_use", id: "t", name: "mail:send", input: {} }).tool_args.action).toBe(
      "send",
    );
  });

  it("copies input into null-prototype objects like any other arguments", () => {
    const parsed = JSON.parse(
      '{"type":"tool_use","id":"t","name":"s","input":{"__proto__":{"polluted":true}}}',
    ) as unknown;
    const call = normalizeToolCall(parsed);
    expect(Object.getPrototypeOf(call.tool_args)).toBeNull();
    expect(Object.keys(call.tool_args)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([[{ type: "tool_use", id: "t", name: "search" }], [{ toolCallId: "c", toolName: "search" }]])(
    "refuses %j for missing arguments",
    (item) => {
      expect(reason(item)).toBe("Tool request must have a tool_args (type dictionary) field");
    },
  );

  it.each([
    [
      { type: "tool_use", id: "t", name: "search", input: "not json" },
      /^`input` of call 't' is not valid JSON \(.+\); write it as one JSON object$/,
    ],
    [{ toolCallId: "c", toolName: "search", input: [1] }, /^`input` of call 'c' must be a JSON object$/],
    [{ functionCall: { name: "search", args: "q" } }, /^`args` of the call is not valid JSON/],
  ])("refuses %j naming the field and the call", (item, message) => {
    expect(reason(item)).toMatch(message);
  });

  it.each([
    [{ type: "tool_use", id: "t", input: {} }],
    [{ toolCallId: "c", input: {} }],
    [{ functionCall: { args: {} } }],
    [{ functionCall: "search" }],
  ])("refuses %j for a missing tool name", (item) => {
    expect(reason(item)).toBe("Tool request must have a tool_name (type string) field");
  });
});

describe("normalizeToolCall: which ids are kept", () => {
  const idOf = (id: unknown) =>
    normalizeToolCall({ tool_name: "search", tool_args: {}, tool_call_id: id }).tool_call_id;

  it("keeps an id of exactly 128 characters and ignores one of 129", () => {
    expect(idOf("a".repeat(128))).toBe("a".repeat(128));
    expect(idOf("a".repeat(129))).toBeUndefined();
  });

  it("counts characters, not UTF-16 units, as Python does", () => {
    expect(idOf("😀".repeat(128))).toBe("😀".repeat(128));
    expect(idOf("😀".repeat(129))).toBeUndefined();
  });

  it("keeps printable ids, spaces and non-ASCII letters included", () => {
    expect(idOf("call 1")).toBe("call 1");
    expect(idOf("appel-é_1:x/y")).toBe("appel-é_1:x/y");
  });

  it.each([
    ["line\nbreak"],
    ["nul\u0000"],
    ["tab\t"],
    ["zero\u200bwidth"],
    ["line\u2028sep"],
    ["del\u007f"],
    ["lone\ud800"],
  ])("ignores the id %j, which has a character that is not printable", (id) => {
    expect(idOf(id)).toBeUndefined();
  });

  it.each([[""], [42], [null], [true], [["call_1"]], [{ id: "call_1" }]])(
    "ignores the non-string or empty id %j",
    (id) => {
      expect(idOf(id)).toBeUndefined();
    },
  );

  it("ignores a bad id without refusing the call", () => {
    const call = normalizeToolCall({ id: 7, type: "function", function: { name: "search", arguments: '{"q":"x"}' } });
    expect(plain(call)).toEqual({ tool_name: "search", tool_args: { q: "x" } });
  });

  it("falls back to the next id the call carries when the first is unusable", () => {
    expect(
      normalizeToolCall({ tool_call_id: "x".repeat(200), toolCallId: "good", toolName: "s", input: {} }).tool_call_id,
    ).toBe("good");
  });
});

describe("callIdentity", () => {
  it("gives the id and the name as written, even when the arguments are malformed", () => {
    expect(
      callIdentity({ id: "call_1", type: "function", function: { name: "mail:send", arguments: "{bad" } }),
    ).toEqual({
      tool_call_id: "call_1",
      name: "mail:send",
    });
    expect(callIdentity({ type: "tool_use", id: "toolu_1", name: "search" })).toEqual({
      tool_call_id: "toolu_1",
      name: "search",
    });
  });

  it("gives what there is and nothing more", () => {
    expect(callIdentity({ toolName: "search", input: {} })).toEqual({ name: "search" });
    expect(callIdentity({ toolCallId: "c1" })).toEqual({ tool_call_id: "c1" });
    expect(callIdentity("text")).toEqual({});
    expect(callIdentity({ actions: "bad", tool_call_id: "w" })).toEqual({ tool_call_id: "w" });
  });

  it("reads the same id normalizeToolCall keeps", () => {
    const items = [
      { tool_name: "s", tool_args: {}, id: "ignored" },
      { functionCall: { name: "s", args: {}, id: "g" } },
      { type: "function_call", id: "fc", call_id: "call", name: "s", arguments: "{}" },
      { actions: [{ toolCallId: "inner", toolName: "s", input: {} }] },
    ];
    for (const item of items) expect(callIdentity(item).tool_call_id).toBe(normalizeToolCall(item).tool_call_id);
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
    [
      {
        actions: [
          { tool_name: "a", tool_args: {} },
          { tool_name: "b", tool_args: {} },
        ],
      },
    ],
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
  ])("refuses %j for missing or non-dictionary arguments", (item) => {
    expect(reason(item)).toBe("Tool request must have a tool_args (type dictionary) field");
  });

  // OpenAI's `arguments` is JSON text a model wrote: the refusal names the field and the call, never `tool_args`.
  it.each([
    [{ name: "search", arguments: "not json" }, /^`arguments` of the call is not valid JSON \(/],
    [{ name: "search", arguments: "[1,2]" }, /^`arguments` of the call must be a JSON object, not an array$/],
    [{ name: "search", arguments: '"x"' }, /^`arguments` of the call must be a JSON object, not a string$/],
    [
      { id: "call_9", type: "function", function: { name: "search", arguments: "{bad" } },
      /^`arguments` of call 'call_9' is not valid JSON \(.+\); write it as one JSON object$/,
    ],
  ])("refuses %j naming `arguments` and the call's id", (item, message) => {
    expect(reason(item)).toMatch(message);
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
