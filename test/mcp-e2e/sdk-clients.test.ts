/**
 * The official TypeScript SDK's clients against fanout's MCP endpoint under `wrangler dev`, over
 * real HTTP: `@modelcontextprotocol/sdk` 1.32 for the handshake (2025-11-25) and its experimental
 * task client, `@modelcontextprotocol/client` 2.4 pinned to 2026-07-28 (discover, `_meta`,
 * `resultType`, cache hints), and the tasks extension's own client with an approval asked of it.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, auth, chat, mcpUrl, startKit } from "./fanout";

let kit: Awaited<ReturnType<typeof startKit>>;

beforeAll(async () => {
  kit = await startKit(
    {
      search: { description: "Search flights.", read_only: true, run: ({ q }: { q: string }) => `3 flights to ${q}` },
      slow: {
        description: "Takes a while.",
        read_only: true,
        run: async () => {
          await new Promise((r) => setTimeout(r, 1500));
          return "done slowly";
        },
      },
      book: { description: "Book a flight.", run: ({ flight }: { flight: string }) => `booked ${flight}` },
    },
    { approvals: [{ tools: ["book"], ask_mcp_client: true }] },
  );
});
afterAll(() => kit?.close());

/** Every JSON-RPC answer the client received, as sent on the wire. */
function recording() {
  const bodies: any[] = [];
  const fetchAndRecord = async (input: string | URL | Request, init?: RequestInit) => {
    const res = await fetch(input, init);
    const text = await res.clone().text();
    const type = res.headers.get("content-type") ?? "";
    if (type.includes("application/json") && text) bodies.push(JSON.parse(text));
    if (type.includes("text/event-stream"))
      for (const line of text.split("\n")) if (line.startsWith("data:")) bodies.push(JSON.parse(line.slice(5)));
    return res;
  };
  return { bodies, fetch: fetchAndRecord };
}

describe("@modelcontextprotocol/sdk 1.32 (the handshake)", () => {
  it("negotiates 2025-11-25 without a session, lists the tools and runs a call as a job", async () => {
    const client = new LegacyClient({ name: "sdk-v1", version: "1" });
    const transport = new LegacyTransport(new URL(mcpUrl(chat("v1"))), { requestInit: { headers: auth() } });
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined();
    expect(client.getServerVersion()?.name).toBe("fanout");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["search", "slow", "book", "wait"]));
    expect(tools.find((t) => t.name === "search")?.annotations?.readOnlyHint).toBe(true);
    const result = await client.callTool({ name: "search", arguments: { q: "Lisbon" } });
    expect(result.content).toEqual([{ type: "text", text: "3 flights to Lisbon" }]);
    expect(result.structuredContent).toMatchObject({ tool_name: "search", state: "success" });
    await client.close();
  });

  it("runs a task-augmented call through its experimental task client", async () => {
    const client = new LegacyClient({ name: "sdk-v1-tasks", version: "1" });
    await client.connect(new LegacyTransport(new URL(mcpUrl(chat("v1-tasks"))), { requestInit: { headers: auth() } }));
    const seen: string[] = [];
    let final: any;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "slow", arguments: {} },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      seen.push(message.type === "taskStatus" ? `status:${message.task.status}` : message.type);
      if (message.type === "result") final = message.result;
      if (message.type === "error") throw message.error;
    }
    expect(seen[0]).toBe("taskCreated");
    expect(seen.at(-1)).toBe("result");
    expect(final.content).toEqual([{ type: "text", text: "done slowly" }]);
    await client.close();
  });
});

describe("@modelcontextprotocol/client 2.4 pinned to 2026-07-28", () => {
  it("discovers, sends _meta on every request, and gets resultType and cache hints back", async () => {
    const wire = recording();
    const client = new ModernClient(
      { name: "sdk-v2", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new ModernTransport(new URL(mcpUrl(chat("v2"))), { fetch: wire.fetch, requestInit: { headers: auth() } }),
    );
    expect(client.getServerVersion()?.name).toBe("fanout");
    const list = await client.listTools();
    expect(list.tools.map((t) => t.name)).toContain("search");
    const result = await client.callTool({ name: "search", arguments: { q: "Porto" } });
    expect(result.content).toEqual([{ type: "text", text: "3 flights to Porto" }]);
    const discover = wire.bodies.find((b) => b.result?.supportedVersions);
    expect(discover.result.supportedVersions).toEqual(["2026-07-28"]);
    expect(discover.result.capabilities.extensions).toHaveProperty(["io.modelcontextprotocol/tasks"]);
    const listed = wire.bodies.find((b) => b.result?.tools);
    expect(listed.result).toMatchObject({ resultType: "complete", ttlMs: 5000, cacheScope: "private" });
    const called = wire.bodies.find((b) => b.result?.structuredContent);
    expect(called.result.resultType).toBe("complete");
    expect(called.result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("fanout");
    await client.close();
  });

  it("runs a task with the extension's client, and the client's own approval decides the call", async () => {
    const id = chat("v2-tasks");
    const client = new ModernClient(
      { name: "approving-host", version: "1" },
      {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
        capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
      },
    );
    await client.connect(new ModernTransport(new URL(mcpUrl(id)), { requestInit: { headers: auth() } }));
    let sent = 0;
    const asked: unknown[] = [];
    const session = createTaskSessionFromClient(client, {
      endpointId: `fanout-${id}`,
      rawDispatch: async (request) => {
        const r = request as { method: string; params?: Record<string, unknown> };
        const name = r.params?.name ?? r.params?.taskId;
        const res = await fetch(mcpUrl(id), {
          method: "POST",
          headers: {
            ...auth(),
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": r.method,
            ...(typeof name === "string" ? { "mcp-name": name } : {}),
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: ++sent, ...r }),
        });
        const text = await res.text();
        const answer = (res.headers.get("content-type") ?? "").includes("text/event-stream")
          ? JSON.parse(
              text
                .split("\n")
                .filter((l) => l.startsWith("data:"))
                .at(-1)!
                .slice(5),
            )
          : JSON.parse(text);
        return answer.error ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result };
      },
      v2RequestFraming: {
        protocolVersion: "2026-07-28",
        clientInfo: { name: "approving-host", version: "1" },
        clientCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
      },
      onInputRequest: async (request) => {
        asked.push(request.params);
        return { action: "accept", content: { decision: "approve" } } as never;
      },
    });
    const execution = await session.callTool("book", { flight: "TP123" });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("completed");
    const result = (outcome as unknown as { result: { content: unknown; structuredContent: { job_id: string } } })
      .result;
    expect(result.content).toEqual([{ type: "text", text: "booked TP123" }]);
    expect(JSON.stringify(asked[0])).toContain("TP123");
    const record = await api(`/v1/chats/${id}/jobs/${result.structuredContent.job_id}`);
    expect(record.approval).toMatchObject({ status: "approved", by: "mcp:approving-host" });
    await session.close();
  });
});
