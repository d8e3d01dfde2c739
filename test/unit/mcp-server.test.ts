/**
 * The MCP endpoint's pure rules (docs/mcp.md): what `tools/list` lists and how it pages, how a job
 * reads as a call's result and as a task, and the approval form and the decision read from it.
 */
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../src/core/agents/llm";
import { approvalInputRequests, readDecision } from "../../src/core/mcp-server/approval-form";
import {
  endedCallResult,
  mcpJobView,
  statusMessage,
  stillRunningResult,
  taskStatus,
} from "../../src/core/mcp-server/job-view";
import { InvalidCursor, mcpTools, TOOLS_PAGE_SIZE, toolsPage } from "../../src/core/mcp-server/tool-list";
import type { CatalogTool } from "../../src/core/tools/catalog";
import { job, T0 } from "./fixtures";

const def = (name: string, parameters?: Record<string, unknown>): ToolDefinition => ({
  type: "function",
  function: { name, description: `${name} it`, ...(parameters ? { parameters } : {}) },
});
const tool = (name: string, kind: CatalogTool["kind"], readOnly: boolean): CatalogTool => ({
  name,
  kind,
  description: "",
  parameters: {},
  readOnly: () => readOnly,
});

describe("tools/list", () => {
  const defs = [
    def("parallel"),
    def("wait"),
    def("http_request"),
    def("echo", { properties: { x: {} } }),
    def("spawn_task"),
  ];
  const catalog = [
    tool("wait", "wait", true),
    tool("http_request", "http_request", true),
    tool("echo", "http_tool", true),
  ];

  it("lists the agent's tools but `parallel`, marking only tools that always only read", () => {
    const tools = mcpTools(defs, catalog, { taskSupport: false });
    expect(tools.map((t) => [t.name, t.annotations.readOnlyHint])).toEqual([
      ["wait", true],
      ["http_request", false], // reads or writes by its method
      ["echo", true],
      ["spawn_task", false],
    ]);
    expect(tools[2]!.inputSchema).toEqual({ type: "object", properties: { x: {} } });
    expect(tools.every((t) => t.execution === undefined)).toBe(true);
    expect(mcpTools(defs, catalog, { taskSupport: true })[0]!.execution).toEqual({ taskSupport: "optional" });
  });

  it("pages at 100 with an opaque cursor, and refuses one it did not give", () => {
    const many = mcpTools(
      Array.from({ length: 250 }, (_, i) => def(`t${i}`)),
      [],
      { taskSupport: false },
    );
    const first = toolsPage(many, undefined);
    expect(first.tools).toHaveLength(TOOLS_PAGE_SIZE);
    const second = toolsPage(many, first.nextCursor);
    expect(second.tools[0]!.name).toBe("t100");
    const third = toolsPage(many, second.nextCursor);
    expect(third.tools).toHaveLength(50);
    expect(third.nextCursor).toBeUndefined();
    expect(toolsPage(many.slice(0, 3), undefined)).toEqual({ tools: many.slice(0, 3) });
    for (const bad of ["nope", btoa("tools:0"), btoa("tools:999"), btoa("other:100"), "%%%"])
      expect(() => toolsPage(many, bad)).toThrow(InvalidCursor);
  });
});

describe("a job as a call's result and as a task", () => {
  const view = (over: Parameters<typeof job>[0]) => mcpJobView(job(over), T0 + 5_000, 100);

  it("answers a success with its text, or an MCP tool's own parts, and its snapshot", () => {
    const done = view({ state: "success", result: "hello", started_at: T0 + 10, completed_at: T0 + 20 });
    expect(endedCallResult(done)).toEqual({
      content: [{ type: "text", text: "hello" }],
      structuredContent: done.snapshot,
      isError: false,
    });
    expect(done.updated_at).toBe(new Date(T0 + 20).toISOString());
    const parts = [{ type: "image", data: "AAAA", mimeType: "image/png" }];
    const mcp = view({ state: "success", result: "[image]", content: JSON.stringify(parts) });
    expect(endedCallResult(mcp).content).toEqual(parts);
  });

  it("answers a job that did not succeed as an error result with its error text", () => {
    const failed = view({ state: "timeout", error: "Timed out after 5 s." });
    expect(endedCallResult(failed)).toMatchObject({
      content: [{ text: "Error: Timed out after 5 s." }],
      isError: true,
    });
    const running = view({ state: "running", started_at: T0 });
    const later = stillRunningResult(running, "chat one", 90);
    expect(later.isError).toBe(false);
    expect(later.content[0]!.text).toContain("/v1/chats/chat%20one/jobs/echo-AAAAAAAAAAAA");
  });

  it("maps job states to task statuses under each exchange", () => {
    const status = (over: Parameters<typeof job>[0], exchange: "2026" | "2025", asksClient = false) =>
      taskStatus(view(over), { exchange, asksClient });
    expect(status({ state: "pending" }, "2026")).toBe("working");
    expect(status({ state: "pending", waiting_for: "approval" }, "2026", true)).toBe("input_required");
    expect(status({ state: "pending", waiting_for: "approval" }, "2026", false)).toBe("working");
    expect(status({ state: "success" }, "2025")).toBe("completed");
    expect(status({ state: "error" }, "2026")).toBe("completed"); // with an error result, as the extension asks
    expect(status({ state: "error" }, "2025")).toBe("failed");
    expect(status({ state: "timeout" }, "2025")).toBe("failed");
    expect(status({ state: "cancelled" }, "2026")).toBe("cancelled");
  });

  it("says what the job waits for or does", () => {
    const flow = JSON.stringify({ holds: [{ rule: "per-user", key: "u1" }], rules: {} });
    expect(statusMessage(view({ waiting_for: "approval" }))).toBe("waiting for approval");
    expect(statusMessage(view({ waiting_for: "flow", flow }))).toBe("waiting for flow slot: per-user");
    expect(
      statusMessage(view({ state: "running", progress: JSON.stringify({ progress: 1, message: "page 2" }) })),
    ).toBe("page 2");
    expect(statusMessage(view({ state: "running" }))).toBe("running");
    expect(statusMessage(view({ state: "error", error: "boom" }))).toBe("boom");
    expect(statusMessage(view({ state: "success", result: "ok" }))).toBeUndefined();
  });
});

describe("the approval form", () => {
  it("shows the call's tool and arguments, cut when long, and asks approve or deny with a reason", () => {
    const long = "x".repeat(3000);
    const form = approvalInputRequests(mcpJobView(job({ tool_args: JSON.stringify({ to: long }) }), T0, 100));
    const params = form.approval.params;
    expect(form.approval.method).toBe("elicitation/create");
    expect(params.message).toContain("'echo'");
    expect(params.message.length).toBeLessThan(2200);
    expect(params.requestedSchema.required).toEqual(["decision"]);
    expect(params.requestedSchema.properties.decision.enum).toEqual(["approve", "deny"]);
  });

  it("reads a decision from the client's answer", () => {
    expect(readDecision({ action: "accept", content: { decision: "approve", reason: "ok" } })).toEqual({
      decision: "approve",
      reason: "ok",
    });
    expect(readDecision({ action: "accept", content: { decision: "deny" } })).toEqual({
      decision: "deny",
      reason: null,
    });
    expect(readDecision({ action: "decline" })).toEqual({ decision: "deny", reason: null });
    expect(readDecision({ action: "cancel" })).toEqual({ decision: null });
    for (const bad of [
      undefined,
      "yes",
      { action: "maybe" },
      { action: "accept", content: {} },
      { action: "accept", content: { decision: "approve", reason: 5 } },
    ])
      expect(readDecision(bad)).toHaveProperty("invalid");
  });
});
