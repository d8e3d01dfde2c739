/**
 * fanout as an MCP server (docs/mcp.md) in the Workers runtime, spoken to by the official SDK's
 * clients and by raw JSON-RPC where the wire itself is the point: auth, the stateless exchange of
 * 2026-07-28 and the handshake versions, `tools/list` and `tools/call`.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, inject, it } from "vitest";
import { api, configure, json, toolConfig, toolServer } from "../helpers";
import { legacyClient, legacyRequest, MODERN, modernClient, modernRequest, rpc } from "../mcp-clients";

afterEach(() => reset());

const limits = (more: Record<string, unknown>) => ({ limits: more });

describe("the MCP endpoint's HTTP face", () => {
  it("asks for the API key as a bearer token, and has no stream to GET or session to DELETE", async () => {
    const unauthorized = await api("/v1/chats/mcp-auth/mcp", {
      key: null,
      body: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("www-authenticate")).toMatch(/^Bearer/);
    for (const method of ["GET", "DELETE"]) {
      const res = await api("/v1/chats/mcp-auth/mcp", { method });
      expect(res.status).toBe(405);
      expect((await json(res)).error.code).toBe(-32000);
    }
  });

  it("answers a body that is not JSON with a JSON-RPC parse error", async () => {
    const res = await api("/v1/chats/mcp-json/mcp", { rawBody: "{not json" });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe(-32700);
  });

  it("refuses an unknown agent profile before any MCP exchange", async () => {
    const res = await api("/v1/chats/mcp-agent/mcp?agent=nobody", { body: { jsonrpc: "2.0", id: 1, method: "ping" } });
    expect(res.status).toBe(400);
  });
});

describe("2026-07-28", () => {
  it("discovers the server statelessly: versions, the tasks extension, its identity", async () => {
    await configure(toolConfig());
    const { status, headers, last } = await rpc("mcp-discover", modernRequest("server/discover"));
    expect(status).toBe(200);
    expect(headers.get("mcp-session-id")).toBeNull();
    expect(last.result.supportedVersions).toContain(MODERN);
    expect(last.result.capabilities.extensions).toHaveProperty(["io.modelcontextprotocol/tasks"]);
    expect(last.result.resultType).toBe("complete");
    expect(last.result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("fanout");
  });

  it("lists with cache hints, and refuses a version it does not speak or headers that disagree with the body", async () => {
    await configure(toolConfig());
    const list = await rpc("mcp-hints", modernRequest("tools/list"));
    expect(list.last.result).toMatchObject({ resultType: "complete", ttlMs: 5000, cacheScope: "private" });

    const old = modernRequest("tools/list");
    const body = JSON.parse(old.body);
    body.params._meta["io.modelcontextprotocol/protocolVersion"] = "2099-01-01";
    const unsupported = await rpc("mcp-hints", {
      ...old,
      headers: { ...old.headers, "mcp-protocol-version": "2099-01-01" },
      body: JSON.stringify(body),
    });
    expect(unsupported.status).toBe(400);
    expect(unsupported.last.error.code).toBe(-32022);
    expect(JSON.stringify(unsupported.last.error)).toContain(MODERN);

    const mismatch = await rpc(
      "mcp-hints",
      modernRequest("tools/call", { name: "echo", arguments: {} }, { headers: { "mcp-name": "other" } }),
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.last.error.code).toBe(-32020);
  });

  it("lists the agent's tools in order, read-only ones marked, `parallel` left out", async () => {
    await configure(
      toolConfig({
        agents: { reader: { tools: ["echo", "sleep", "hang_write"] } },
        builtins: { http_request: { allowed_origins: [toolServer()] } },
      }),
    );
    const client = await modernClient("mcp-list");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).not.toContain("parallel");
    expect(names.slice(0, 4)).toEqual(["wait", "http_request", "echo", "sleep"]);
    expect(names).toEqual(expect.arrayContaining(["spawn_task", "call_subordinate"]));
    const hint = (name: string) => tools.find((t) => t.name === name)?.annotations?.readOnlyHint;
    expect([hint("wait"), hint("echo"), hint("hang_write"), hint("http_request")]).toEqual([true, true, false, false]);
    expect(tools.find((t) => t.name === "sleep")?.inputSchema).toMatchObject({ type: "object", required: ["ms"] });
    expect(tools.every((t) => !("execution" in t))).toBe(true);

    const reader = await modernClient("mcp-list", { query: "?agent=reader" });
    expect((await reader.listTools()).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["wait", "echo", "sleep", "hang_write"]),
    );
    expect((await reader.listTools()).tools.map((t) => t.name)).not.toContain("other");
  });

  it("pages the list at 100 tools, the same order every time", async () => {
    const many = Array.from({ length: 130 }, (_, i) => ({
      name: `t${String(i).padStart(3, "0")}`,
      description: "a tool",
      url: `${toolServer()}/echo`,
      parameters: { type: "object" },
    }));
    await configure({ tools: many });
    const first = await rpc("mcp-pages", modernRequest("tools/list"));
    expect(first.last.result.tools).toHaveLength(100);
    const cursor = first.last.result.nextCursor;
    expect(typeof cursor).toBe("string");
    const second = await rpc("mcp-pages", modernRequest("tools/list", { cursor }));
    expect(second.last.result.tools).toHaveLength(33); // 130, `wait`, `spawn_task` and `call_subordinate`
    expect(second.last.result.nextCursor).toBeUndefined();
    const again = await rpc("mcp-pages", modernRequest("tools/list"));
    expect(again.last.result.tools).toEqual(first.last.result.tools);
    const bad = await rpc("mcp-pages", modernRequest("tools/list", { cursor: "bm9wZQ" }));
    expect(bad.last.error.code).toBe(-32602);
  });

  it("runs a call as a job and answers its text, with its snapshot as structuredContent", async () => {
    await configure(toolConfig());
    const client = await modernClient("mcp-call");
    const result = await client.callTool({ name: "echo", arguments: { x: 1 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ state: "success", tool_name: "echo" });
    const jobId = (result.structuredContent as { job_id: string }).job_id;
    const text = (result.content as { type: string; text: string }[])[0]!;
    expect(text.type).toBe("text");
    const record = await json(await api(`/v1/chats/mcp-call/jobs/${jobId}`));
    expect(text.text).toBe(record.result);
    expect(record.collected_at).not.toBeNull(); // handed over: not reported again as an extra
  });

  it("refuses an unknown tool and bad arguments as invalid params, and answers other refusals as error results", async () => {
    await configure(toolConfig({ agents: { narrow: { tools: ["echo"] } } }));
    const unknown = await rpc("mcp-refuse", modernRequest("tools/call", { name: "nope", arguments: {} }));
    expect(unknown.last.error.code).toBe(-32602);
    expect(unknown.last.error.message).toMatch(
      /^The call uses unknown tool 'nope'\. Available tools: wait, http_request, echo/,
    );
    const parallel = await rpc("mcp-refuse", modernRequest("tools/call", { name: "parallel", arguments: {} }));
    expect(parallel.last.error.code).toBe(-32602);
    const badArgs = await rpc("mcp-refuse", modernRequest("tools/call", { name: "sleep", arguments: { ms: "soon" } }));
    expect(badArgs.last.error.code).toBe(-32602);
    expect(badArgs.last.error.message).toMatch(/^The call is not a valid tool call: /);
  });

  it("answers a refusal of the call by the chat's state as an error result, as the tool-calls route would", async () => {
    await configure(toolConfig(limits({ max_active_jobs_per_chat: 1, max_wait_seconds: 1 })));
    const client = await modernClient("mcp-cap");
    const held = await client.callTool({ name: "hang", arguments: {} });
    expect((held.structuredContent as { state: string }).state).toBe("running");
    const refused = await client.callTool({ name: "echo", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toBeUndefined();
    expect((refused.content as { text: string }[])[0]!.text).toMatch(/^Error: .*1/);
  });

  it("refuses `parallel` by any of its names: an MCP client makes its calls side by side itself", async () => {
    await configure(toolConfig());
    for (const name of ["parallel", "parallel_tool_calls", "parallel:run"]) {
      const answer = await rpc(
        "mcp-par",
        modernRequest("tools/call", { name, arguments: { tool_calls: [{ tool_name: "echo", tool_args: {} }] } }),
      );
      expect(answer.last.error?.code, name).toBe(-32602);
    }
    expect((await api("/v1/chats/mcp-par/job-records")).status).toBe(404); // nothing was admitted
  });

  it("answers a job that failed as an error result, not a JSON-RPC error", async () => {
    await configure(toolConfig());
    const client = await modernClient("mcp-fail");
    const result = await client.callTool({ name: "fail404", arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ state: "error", tool_name: "fail404" });
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^Error: /);
  });

  it("honours an Idempotency-Key across a retry with a new JSON-RPC id", async () => {
    await configure(toolConfig());
    const headers = { "idempotency-key": "mcp-retry-1" };
    const first = await rpc(
      "mcp-idem",
      modernRequest("tools/call", { name: "echo", arguments: { n: 1 } }, { id: 1, headers }),
    );
    const retry = await rpc(
      "mcp-idem",
      modernRequest("tools/call", { name: "echo", arguments: { n: 1 } }, { id: 2, headers }),
    );
    expect(retry.last.id).toBe(2);
    expect(retry.last.result.structuredContent.job_id).toBe(first.last.result.structuredContent.job_id);
    const records = await json(await api("/v1/chats/mcp-idem/job-records"));
    expect(records.records).toHaveLength(1);
    const other = await rpc(
      "mcp-idem",
      modernRequest("tools/call", { name: "echo", arguments: { n: 2 } }, { id: 3, headers }),
    );
    expect(other.last.result.isError).toBe(true); // the same key for another call
  });

  it("answers a call still running when the wait ends with how to read it later, and it keeps running", async () => {
    await configure(toolConfig(limits({ max_wait_seconds: 1 })));
    const client = await modernClient("mcp-long");
    const result = await client.callTool({ name: "sleep", arguments: { ms: 2500 } });
    expect(result.isError).toBe(false);
    const jobId = (result.structuredContent as { job_id: string; state: string }).job_id;
    expect((result.content as { text: string }[])[0]!.text).toContain(`/v1/chats/mcp-long/jobs/${jobId}`);
    await expect
      .poll(async () => (await json(await api(`/v1/chats/mcp-long/jobs/${jobId}`))).state, { timeout: 10_000 })
      .toBe("success");
  });

  it("takes metadata and budget from the query, as the other batch routes do", async () => {
    await configure(toolConfig());
    const meta = encodeURIComponent(JSON.stringify({ user: "u7" }));
    const client = await modernClient("mcp-meta", { query: `?metadata=${meta}` });
    const result = await client.callTool({ name: "echo", arguments: {} });
    const jobId = (result.structuredContent as { job_id: string }).job_id;
    expect((await json(await api(`/v1/chats/mcp-meta/jobs/${jobId}`))).metadata).toEqual({ user: "u7" });
  });
});

describe("the handshake versions", () => {
  it("runs a call over 2025-11-25, declaring tasks for calls and on each tool", async () => {
    await configure(toolConfig());
    const client = await legacyClient("mcp-legacy");
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.every((t) => t.execution?.taskSupport === "optional")).toBe(true);
    const result = await client.callTool({ name: "echo", arguments: { x: 1 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ state: "success", tool_name: "echo" });
  });

  it("answers 2025-06-18 and 2025-03-26 without sessions or tasks, and an unknown version with one it speaks", async () => {
    await configure(toolConfig());
    for (const version of ["2025-06-18", "2025-03-26"]) {
      const init = await rpc(
        "mcp-old",
        legacyRequest(
          "initialize",
          { protocolVersion: version, capabilities: {}, clientInfo: { name: "old", version: "1" } },
          version,
        ),
      );
      expect(init.last.result.protocolVersion).toBe(version);
      expect(init.last.result.capabilities.tasks).toBeUndefined();
      expect(init.headers.get("mcp-session-id")).toBeNull();
      const list = await rpc("mcp-old", legacyRequest("tools/list", {}, version));
      expect(list.last.result.tools.some((t: { execution?: unknown }) => t.execution)).toBe(false);
      const call = await rpc("mcp-old", legacyRequest("tools/call", { name: "echo", arguments: {} }, version));
      expect(call.last.result.structuredContent.state).toBe("success");
    }
    const unknown = await rpc(
      "mcp-old",
      legacyRequest("initialize", {
        protocolVersion: "2024-01-01",
        capabilities: {},
        clientInfo: { name: "old", version: "1" },
      }),
    );
    expect(["2025-11-25", "2025-06-18", "2025-03-26"]).toContain(unknown.last.result.protocolVersion);
  });

  it("passes an MCP tool's own progress on as it comes, not only every 15 s", { timeout: 30_000 }, async () => {
    await configure(toolConfig({ mcp_servers: [{ name: "everything", url: inject("everythingMcp"), headers: {} }] }));
    const client = await legacyClient("mcp-tool-progress");
    const heard: { progress: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: "everything__trigger-long-running-operation", arguments: { duration: 3, steps: 6 } },
      undefined,
      { onprogress: (p) => void heard.push(p) },
    );
    expect(result.structuredContent).toMatchObject({ state: "success" });
    // The first says at once what the call does; the tool's own reports follow within its 3 s.
    expect(heard.length).toBeGreaterThanOrEqual(3);
    expect(heard.map((p) => p.progress)).toEqual([...heard.map((p) => p.progress)].sort((a, b) => a - b));
  });

  it("sends progress while a call waits for approval, then its result once a person approves", async () => {
    await configure(toolConfig({ approvals: [{ tools: ["echo"] }] }));
    const client = await legacyClient("mcp-progress");
    const messages: string[] = [];
    const pending = client.callTool({ name: "echo", arguments: { x: 2 } }, undefined, {
      onprogress: (p) => void messages.push(p.message ?? ""),
    });
    let jobId = "";
    await expect
      .poll(async () => {
        const jobs = await json(await api("/v1/chats/mcp-progress/jobs"));
        jobId = jobs.jobs?.[0]?.job_id ?? "";
        return jobs.jobs?.[0]?.waiting_for;
      })
      .toBe("approval");
    await expect.poll(() => messages).toContain("waiting for approval");
    const decided = await api(`/v1/chats/mcp-progress/jobs/${jobId}/approval`, { body: { decision: "approve" } });
    expect(decided.status).toBe(200);
    const result = await pending;
    expect(result.structuredContent).toMatchObject({ state: "success", job_id: jobId });
  });
});
