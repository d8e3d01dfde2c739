/** startFanout: one call, a fanout of the test's own, wired through one configuration, gone after stop(). */
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFanout } from "../src/index.js";

describe("startFanout", () => {
  it("answers with its own key only, and keeps the test's configuration beside its wiring", async () => {
    const fanout = await startFanout({
      tools: { echo: { run: (args) => args } },
      config: { limits: { max_job_ids: 7 }, tools: [{ name: "elsewhere", url: "https://tools.example/elsewhere" }] },
    });
    try {
      const config = await fanout.client.config();
      expect(config.limits.max_job_ids).toBe(7);
      expect(config.tools.map((t) => t.name)).toEqual(["echo", "elsewhere"]);
      expect(config.llm).toMatchObject({ base_url: fanout.model.openaiBaseUrl, model: "fake-model" });
      expect(config.webhook!.url).toBe(fanout.webhooks.url);
      const wrongKey = await fetch(`${fanout.url}/v1/config`, {
        headers: { authorization: "Bearer fanout-local-dev-key" },
      });
      expect(wrongKey.status).toBe(401);
    } finally {
      await fanout.stop();
    }
  });

  it("gives an MCP client the chat's endpoint, which lists the test's tools and runs their calls", async () => {
    await using fanout = await startFanout({ tools: { echo: { description: "Echo.", run: (args) => args } } });
    const url = fanout.mcpUrl("mcp-chat", { agent: "default" });
    expect(url).toBe(`${fanout.url}/v1/chats/mcp-chat/mcp?agent=default`);
    const mcp = new McpClient({ name: "kit-test", version: "1" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${fanout.apiKey}` } },
      }),
    );
    expect((await mcp.listTools()).tools.map((t) => t.name)).toContain("echo");
    const result = await mcp.callTool({ name: "echo", arguments: { said: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: '{"said":"hi"}' }]);
    expect(fanout.tools.calls.map((c) => c.args)).toEqual([{ said: "hi" }]);
    await mcp.close();
  });

  it("gives each fanout its own storage, and stop() closes everything it started", async () => {
    const [one, two] = await Promise.all([startFanout({ model: false }), startFanout()]);
    await one.client.parallel("shared-name", { tool_calls: [{ tool_name: "wait", tool_args: { seconds: 0.01 } }] });
    expect((await one.client.chat("shared-name")).chat_id).toBe("shared-name");
    await expect(two.client.chat("shared-name")).rejects.toMatchObject({ code: "chat_not_found" });
    expect((await one.client.config()).llm).toBeNull();
    await Promise.all([one[Symbol.asyncDispose](), two.stop()]);
    for (const url of [one.url, one.model.url, one.webhooks.url]) await expect(fetch(url)).rejects.toThrow();
  });

  it("stops once however often it is told, and ends a next() still waiting", async () => {
    const fanout = await startFanout();
    const waiting = expect(fanout.webhooks.next("batch.finished")).rejects.toThrow(
      "The fanout was stopped before the event arrived.",
    );
    await Promise.all([fanout.stop(), fanout[Symbol.asyncDispose](), fanout.stop()]);
    await waiting;
  });

  it("fails on a port already taken, leaving no server of its own behind", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const servers = () => process.getActiveResourcesInfo().filter((r) => r === "TCPServerWrap").length;
    const before = servers();
    try {
      await expect(startFanout({ port: (taken.address() as { port: number }).port })).rejects.toThrow();
      await expect.poll(servers).toBe(before);
    } finally {
      taken.close();
    }
  });
});
