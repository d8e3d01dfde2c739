/**
 * Two wire texts a model acts on (docs/api.md#arguments-and-call-shapes,
 * docs/api.md#validation-order-and-errors): an unknown tool's error
 * names every tool the calling agent may call there, MCP and subordinate tools
 * included, and an unknown `action` with `wait: false` returns at once.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, call, configure, json, parallel, toolServer, jobInState } from "../helpers";

afterEach(() => reset());

const echoTool = () => ({ name: "echo", url: `${toolServer()}/echo`, read_only: true, parameters: { type: "object" } });
const docs = { name: "docs", url: `${toolServer()}/mcp/unknown-tool`, headers: { Authorization: "Bearer mcp-secret" } };
const MCP_TOOLS =
  "docs__search, docs__write_note, docs__refuse, docs__slow, docs__multi, docs__echo_auth, docs__report_then_hang";

describe("an unknown tool's error", () => {
  it("at /parallel lists the tenant's tools, the MCP tools and the subordinate tools, though the body names no MCP server", async () => {
    await configure({ tools: [echoTool()], mcp_servers: [docs] });
    const { status, body } = await parallel("u1", { tool_calls: [call("echo"), call("nope")] });
    expect(status).toBe(400);
    expect(body.error).toEqual({
      code: "unknown_tool",
      message: `tool_calls[1] uses unknown tool 'nope'. Available tools: wait, echo, ${MCP_TOOLS}, spawn_task, call_subordinate.`,
    });
    expect((await api("/v1/chats/u1/jobs")).status).toBe(404); // nothing started
  });

  it("leaves out the subordinate tools the calling agent may not start", async () => {
    await configure({
      tools: [echoTool()],
      mcp_servers: [docs],
      agents: { solo: { permission: { task: [["*", "deny"]] } } },
    });
    const { body } = await parallel("u2", { tool_calls: [call("nope")] }, { query: "?agent=solo" });
    expect(body.error.message).toBe(
      `tool_calls[0] uses unknown tool 'nope'. Available tools: wait, echo, ${MCP_TOOLS}.`,
    );
  });

  it("at /tool-calls is the call's error entry, and names parallel too", async () => {
    await configure({ tools: [echoTool()], mcp_servers: [docs] });
    const openai = (id: string, name: string) => ({ id, type: "function", function: { name, arguments: "{}" } });
    const answer = await json(
      await api("/v1/chats/u3/tool-calls", { body: [openai("c1", "nope"), openai("c2", "echo")] }),
    );
    expect(answer.results[0]).toMatchObject({ tool_call_id: "c1", state: "error", error: { code: "unknown_tool" } });
    expect(answer.results[0].content).toBe(
      `Error: tool_calls[0] uses unknown tool 'nope'. Available tools: parallel, wait, echo, ${MCP_TOOLS}, spawn_task, call_subordinate.`,
    );
    expect(answer.results[1]).toMatchObject({ tool_call_id: "c2", state: "success" });
  });
});

describe("an unknown action", () => {
  it("with wait:false returns at once like collect, leaving the named jobs running", async () => {
    await configure({ tools: [{ ...echoTool(), name: "hang", url: `${toolServer()}/hang` }] });
    const started = await parallel("u4", { tool_calls: [call("hang")], wait: false });
    const jobId = started.body.jobs[0].job_id;
    await jobInState("u4", jobId, "running"); // its runner took it
    const t0 = Date.now();
    const { status, body } = await parallel("u4", {
      action: "check_later",
      wait: false,
      job_ids: [jobId],
      timeout: 30,
    });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(status).toBe(200);
    expect(body.status).toBe("running");
    expect(body.jobs[0]).toMatchObject({ job_id: jobId, state: "running" });
    expect(body.wait_timeout).toBeUndefined(); // it never waited
    await parallel("u4", { action: "cancel", job_ids: [jobId] });
  });

  it("with wait:false starts its calls in the background and answers the started payload", async () => {
    await configure({ tools: [{ ...echoTool(), name: "hang", url: `${toolServer()}/hang` }] });
    const t0 = Date.now();
    const { body } = await parallel("u5", { action: "whenever", wait: "no", tool_calls: [call("hang")], timeout: 30 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(body.status).toBe("started");
    await parallel("u5", { action: "cancel", job_ids: [body.jobs[0].job_id] });
  });

  it("without wait:false still waits like await", async () => {
    await configure({
      tools: [{ ...echoTool(), name: "hang", url: `${toolServer()}/hang` }],
      limits: { max_wait_seconds: 1 },
    });
    const started = await parallel("u6", { tool_calls: [call("hang")], wait: false });
    const { body } = await parallel("u6", { action: "check_later", job_ids: [started.body.jobs[0].job_id] });
    expect(body).toMatchObject({ status: "waiting", wait_timeout: true });
    await parallel("u6", { action: "cancel", job_ids: [started.body.jobs[0].job_id] });
  });
});
