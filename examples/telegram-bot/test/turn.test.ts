import { describe, expect, it } from "vitest";
import { batchFor, toolMessages, type ToolCall } from "../src/turn";

const fn = (id: string, name: string, args: unknown): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});
const job = (job_id: string, state: "success" | "error", text: string) =>
  state === "success"
    ? { job_id, tool_name: "t", state, duration_seconds: 1, result: text }
    : { job_id, tool_name: "t", state, duration_seconds: 1, error: text };

describe("one batch per model message", () => {
  it("takes a parallel call's calls and direct calls in order, to start without waiting", () => {
    const { args, spans } = batchFor([
      fn("c1", "parallel", {
        tool_calls: [
          { tool_name: "search", tool_args: { q: "a" } },
          { tool_name: "search", tool_args: { q: "b" } },
        ],
      }),
      fn("c2", "weather", { city: "Oslo" }),
    ]);
    expect(args).toEqual({
      tool_calls: [
        { tool_name: "search", tool_args: { q: "a" } },
        { tool_name: "search", tool_args: { q: "b" } },
        { tool_name: "weather", tool_args: { city: "Oslo" } },
      ],
      wait: false,
    });
    expect(spans).toEqual([
      { tool_call_id: "c1", parallel: true, from: 0, to: 2 },
      { tool_call_id: "c2", parallel: false, from: 2, to: 3 },
    ]);
  });

  it("answers each call from its own jobs: a payload for parallel, the result or error for a direct call", () => {
    const { spans } = batchFor([
      fn("c1", "parallel", { tool_calls: [{ tool_name: "a", tool_args: {} }] }),
      fn("c2", "b", {}),
      fn("c3", "c", {}),
    ]);
    const results = {
      status: "partial" as const,
      jobs: [job("j1", "success", "A"), job("j2", "success", "B"), job("j3", "error", "HTTP 500")],
    };
    expect(toolMessages(spans, results)).toEqual([
      { role: "tool", tool_call_id: "c1", content: JSON.stringify({ jobs: [results.jobs[0]] }) },
      { role: "tool", tool_call_id: "c2", content: "B" },
      { role: "tool", tool_call_id: "c3", content: "Error: HTTP 500" },
    ]);
  });

  it("gives a parallel call that covers the whole batch fanout's payload as it is", () => {
    const { spans } = batchFor([fn("c1", "parallel", { tool_calls: [{ tool_name: "a", tool_args: {} }] })]);
    const results = { status: "success" as const, jobs: [job("j1", "success", "A")] };
    expect(toolMessages(spans, results)).toEqual([
      { role: "tool", tool_call_id: "c1", content: JSON.stringify(results) },
    ]);
  });

  it("reads unparseable arguments as none", () => {
    const broken: ToolCall = { id: "c1", type: "function", function: { name: "weather", arguments: "{oops" } };
    expect(batchFor([broken]).args.tool_calls).toEqual([{ tool_name: "weather", tool_args: {} }]);
  });
});
