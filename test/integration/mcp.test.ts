/**
 * MCP servers as tool sources (docs/api.md#mcp-servers), against the SDK's own Streamable HTTP
 * server (test/setup/fake-mcp.ts): naming, calls and their errors, the
 * read-only hint's retry rules, the 5-minute list cache, and MCP tools in
 * /v1/tools, in log rows and in a subordinate's loop.
 */
import { env, reset } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OUTCOME_UNKNOWN_ERROR } from "../../src/core/jobs/job";
import { swapEnv } from "../faults";
import {
  agentConfig,
  api,
  call,
  configure,
  eventually,
  json,
  llmRequests,
  parallel,
  scriptLlm,
  toolConfig,
  toolServer,
} from "../helpers";

afterEach(async () => {
  vi.useRealTimers();
  await reset();
});

const docs = (instance: string) => ({
  name: "docs",
  url: `${toolServer()}/mcp/${instance}`,
  headers: { Authorization: "Bearer mcp-secret" },
});
/** A tenant whose MCP server `docs` is the fake server's instance `instance`. */
const withDocs = (instance: string, extra: Record<string, unknown> = {}) =>
  configure(toolConfig({ mcp_servers: [docs(instance)], ...extra }));

const fake = (path: string, instance: string, init?: RequestInit) =>
  fetch(`${toolServer()}/__mcp/${path}?instance=${instance}`, init);
const mcpCalls = async (instance: string) =>
  (await (await fake("calls", instance)).json()) as { tool: string; args: unknown; authorization?: string }[];
const setMcp = (instance: string, state: Record<string, unknown>) =>
  fake("state", instance, { method: "POST", body: JSON.stringify(state) });
const record = async (chat: string, jobId: string) => json(await api(`/v1/chats/${chat}/jobs/${jobId}`));
const toolNames = async (agent = "default") =>
  ((await json(await api(`/v1/tools?agent=${agent}`))).tools as any[]).map((t) => t.function.name as string);

describe("calling MCP tools", () => {
  it("runs <server>__<tool> on the server, with the configured headers", async () => {
    await withDocs("call");
    const { status, body } = await parallel("m1", { tool_calls: [call("docs__search", { query: "alarms" })] });
    expect(status).toBe(200);
    expect(body.jobs[0]).toMatchObject({ tool_name: "docs__search", state: "success", result: "found: alarms" });
    expect(await mcpCalls("call")).toEqual([
      { tool: "search", args: { query: "alarms" }, authorization: "Bearer mcp-secret" },
    ]);
  });

  it("accepts <server>.<tool> in parallel and stores the model-facing name", async () => {
    await withDocs("dots");
    const { body } = await parallel("m2", { tool_calls: [call("docs.search", { query: "q" })] });
    expect(body.jobs[0]).toMatchObject({ tool_name: "docs__search", state: "success", result: "found: q" });
  });

  it("joins text blocks by lines and turns isError into a job error with the server's message", async () => {
    await withDocs("results");
    const { body } = await parallel("m3", { tool_calls: [call("docs__multi"), call("docs__refuse")] });
    expect(body.jobs.map((j: any) => [j.state, j.result ?? j.error])).toEqual([
      ["success", "part one\npart two"],
      ["error", "the server refused"],
    ]);
  });

  it("validates arguments against the tool's input schema and refuses unknown tools before anything starts", async () => {
    await withDocs("checks");
    const bad = await parallel("m4", { tool_calls: [call("docs__search", { query: 5 })] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_tool_calls");
    expect(bad.body.error.message).toContain("tool_calls[0]");
    const unknown = await parallel("m4", { tool_calls: [call("echo"), call("docs__nope")] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("unknown_tool");
    expect(unknown.body.error.message).toContain("docs__search");
    expect((await api("/v1/chats/m4/jobs")).status).toBe(404);
    expect(await mcpCalls("checks")).toEqual([]);
  });

  it("retries any tool whose server could not be reached (nothing was sent), within the deadline", async () => {
    await withDocs("down");
    expect(await toolNames()).toContain("docs__write_note"); // listed while it was up
    await setMcp("down", { down: true });
    const started = await parallel("m5", {
      tool_calls: [call("docs__write_note", { text: "hi" })],
      wait: false,
      job_timeout: 20,
    });
    expect(started.status).toBe(200);
    setTimeout(() => void setMcp("down", { down: false }), 300);
    const { body } = await parallel("m5", { job_ids: [started.body.jobs[0].job_id], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "saved: hi" });
    expect((await record("m5", body.jobs[0].job_id)).attempt).toBeGreaterThan(1);
    expect((await mcpCalls("down")).map((c) => c.tool)).toEqual(["write_note"]);
  });

  it("retries a read-only tool after the connection broke mid-call, never a tool without readOnlyHint", async () => {
    await withDocs("drop");
    await setMcp("drop", { dropCalls: 1 });
    const read = await parallel("m6", {
      tool_calls: [call("docs__search", { query: "again" })],
      job_timeout: 20,
      timeout: 20,
    });
    expect(read.body.jobs[0]).toMatchObject({ state: "success", result: "found: again" });
    expect((await record("m6", read.body.jobs[0].job_id)).attempt).toBe(2);
    await setMcp("drop", { dropCalls: 1 });
    const write = await parallel("m6", {
      tool_calls: [call("docs__write_note", { text: "once" })],
      job_timeout: 20,
      timeout: 20,
    });
    expect(write.body.jobs[0]).toMatchObject({ state: "error", error: OUTCOME_UNKNOWN_ERROR });
    expect((await record("m6", write.body.jobs[0].job_id)).attempt).toBe(1);
  });

  it("answers 502 mcp_unavailable for a server that was never listed, and starts nothing", async () => {
    await configure(toolConfig({ mcp_servers: [{ name: "gone", url: "http://127.0.0.1:1/mcp", headers: {} }] }));
    const { status, body } = await parallel("m7", { tool_calls: [call("echo"), call("gone__anything")] });
    expect(status).toBe(502);
    expect(body.error).toMatchObject({ code: "mcp_unavailable", server: "gone" });
    expect(body.error.message).toContain("MCP server 'gone' could not be listed");
    expect((await api("/v1/chats/m7/jobs")).status).toBe(404);
    // Batches that name none of its tools are not held up by it.
    expect((await parallel("m7", { tool_calls: [call("echo")] })).status).toBe(200);
    expect(await toolNames()).not.toContain("gone__anything");
  });

  it("lists no server whose URL is no longer allowed (ALLOW_PRIVATE_EGRESS turned off)", async () => {
    await withDocs("egress");
    await swapEnv(env.TENANT.getByName("tenant/acme"), () => ({ ALLOW_PRIVATE_EGRESS: "false" }));
    const { status, body } = await parallel("m11", { tool_calls: [call("docs__search", { query: "x" })] });
    expect(status).toBe(502);
    expect(body.error.message).toContain("MCP server 'docs': its URL must use https:");
  });

  it("runs a readOnlyHint tool in the concurrent tier of /tool-calls and a tool without it after", async () => {
    await withDocs("tiers");
    const openai = (id: string, name: string, args: unknown) => ({
      id,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    });
    const res = await api("/v1/chats/m12/tool-calls", {
      body: {
        tool_calls: [openai("c1", "docs__write_note", { text: "after" }), openai("c2", "docs__slow", { ms: 400 })],
        timeout: 20,
      },
    });
    const { results } = await json(res);
    expect(results.map((r: any) => [r.name, r.state])).toEqual([
      ["docs__write_note", "success"],
      ["docs__slow", "success"],
    ]);
    const [write, read] = await Promise.all(results.map((r: any) => record("m12", r.job_id)));
    // The side-effecting call, though first in the message, starts only once the read-only one has ended.
    expect(Date.parse(write.started_at)).toBeGreaterThanOrEqual(Date.parse(read.completed_at));
  });

  it("ends a call that reported progress and then none for tool_idle_seconds, before its deadline; a call that never reported runs on", {
    timeout: 30_000,
  }, async () => {
    await withDocs("stall", { limits: { tool_idle_seconds: 10 } });
    const started = Date.now();
    const res = await parallel("mcp-stall", {
      tool_calls: [call("docs__report_then_hang", { reports: 2 }), call("docs__slow", { ms: 11_000 })],
      timeout: 25,
      job_timeout: 60,
    });
    const [stalled, quiet] = res.body.jobs;
    expect(stalled).toMatchObject({
      state: "timeout",
      error: "Stalled: no progress for 10 s.",
      error_type: "idle_timeout",
      retryable: true,
    });
    expect(quiet).toMatchObject({ state: "success", result: "slept 11000" });
    // Ten seconds after its last report (at about 200 ms), far before its 60 s deadline.
    const ended = Date.parse((await record("mcp-stall", stalled.job_id)).completed_at);
    expect(ended - started).toBeGreaterThanOrEqual(10_000);
    expect(ended - started).toBeLessThan(20_000);
    expect((await mcpCalls("stall")).filter((c) => c.tool === "report_then_hang")).toHaveLength(1);
  });

  it("writes an `mcp` log row for an MCP tool", async () => {
    await withDocs("log");
    await parallel("m8", { tool_calls: [call("docs__search", { query: "row" }), call("echo")] });
    const { rows } = await json(await api("/v1/chats/m8/log"));
    expect(rows.map((r: any) => [r.type, r.heading, r.content])).toEqual([
      ["mcp", "Using tool 'docs__search'", "found: row"],
      ["tool", "Using tool 'echo'", "{}"],
    ]);
  });
});

describe("MCP tool lists", () => {
  it("are offered in /v1/tools as <server>__<tool>, without $schema, under the profile's globs", async () => {
    await withDocs("listed", { agents: { researcher: { description: "r", tools: ["docs__s*"] } } });
    const { tools } = await json(await api("/v1/tools"));
    const search = tools.find((t: any) => t.function.name === "docs__search");
    expect(search.function.description).toBe("Searches the fake docs");
    expect(search.function.parameters).toMatchObject({
      type: "object",
      properties: { query: { type: "string" } },
      required: ["query"],
    });
    expect(search.function.parameters.$schema).toBeUndefined();
    expect(await toolNames("researcher")).toEqual(expect.arrayContaining(["docs__search", "docs__slow"]));
    expect(await toolNames("researcher")).not.toContain("docs__write_note");
  });

  it("are cached for 5 minutes, served stale while the server is down, and refreshed on PUT /v1/config", async () => {
    await withDocs("cache");
    expect(await toolNames()).toContain("docs__search");
    await setMcp("cache", { late: true });
    expect(await toolNames()).not.toContain("docs__late"); // still the cached list

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 5 * 60_000 + 1_000);
    expect(await toolNames()).toContain("docs__late"); // expired: listed again

    await setMcp("cache", { late: false, down: true });
    vi.setSystemTime(Date.now() + 5 * 60_000 + 1_000);
    expect(await toolNames()).toContain("docs__late"); // the server is down: the last list stands
    const { status, body } = await parallel("m9", { tool_calls: [call("docs__search", { query: "x" })], wait: false });
    expect(status).toBe(200); // admitted from the stale list
    expect(body.jobs[0].tool_name).toBe("docs__search");

    await setMcp("cache", { down: false });
    await withDocs("cache"); // a PUT makes every list stale: the next use lists it again
    vi.setSystemTime(Date.now() + 11_000); // once 10 s have passed since its last listing
    await eventually(async () => !(await toolNames()).includes("docs__late"));
  });

  it("a server is listed at most once every 10 s: writes and uses in a loop cost one listing", async () => {
    const lists = async () => ((await (await fake("lists", "loop")).json()) as { lists: number }).lists;
    await withDocs("loop");
    expect(await toolNames()).toContain("docs__search");
    expect(await lists()).toBe(1);
    for (let i = 0; i < 5; i++) {
      await withDocs("loop"); // each write makes the list stale...
      expect(await toolNames()).toContain("docs__search"); // ...and within 10 s the stale list serves
    }
    expect(await lists()).toBe(1);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 11_000);
    expect(await toolNames()).toContain("docs__search");
    expect(await lists()).toBe(2);
  });

  it("reach a subordinate's model and its calls", async () => {
    await configure(
      agentConfig("m-mcp-child", {
        mcp_servers: [docs("child")],
        agents: { researcher: { description: "r", tools: ["docs__*"] } },
      }),
    );
    await scriptLlm("m-mcp-child", [
      { tool_calls: [{ name: "docs__search", arguments: { query: "deep" } }] },
      { content: "found it" },
    ]);
    const { body } = await parallel("m10", {
      tool_calls: [call("call_subordinate", { message: "Look.", profile: "researcher", reset: true })],
      timeout: 20,
    });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "found it" });
    const [first, second] = await llmRequests("m-mcp-child");
    const names = first!.tools!.map((t: any) => t.function.name);
    expect(names).toContain("docs__search");
    expect(names).not.toContain("echo");
    expect(second!.messages.find((m: any) => m.role === "tool").content).toContain("found: deep");
    const { rows } = await json(await api("/v1/chats/m10/log"));
    expect(rows.map((r: any) => r.type)).toEqual(["subagent"]);
  });
});

describe("MCP configuration", () => {
  it("refuses a tenant tool named like a tool of an MCP server", async () => {
    const res = await api("/v1/config", {
      method: "PUT",
      body: toolConfig({
        mcp_servers: [docs("cfg")],
        tools: [
          { name: "docs__search", description: "d", url: `${toolServer()}/echo`, parameters: { type: "object" } },
        ],
      }),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain("'docs__search' looks like a tool of MCP server 'docs'");
  });
});
