/**
 * The egress rules at send time (SPEC §2.1 v1.2): no outbound request follows a redirect, and a URL
 * accepted when the config was stored is checked again before every request. Here for MCP servers;
 * tool and webhook sends have theirs beside their other tests (tools, executor-races, deliveries),
 * and the fetch itself in unit/egress-fetch.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { call, configure, parallel, toolConfig, toolServer } from "../helpers";

afterEach(() => reset());

/** Every request the fake servers recorded whose path starts with `prefix`. */
async function requestsTo(prefix: string): Promise<{ method: string; path: string }[]> {
  const calls = (await (await fetch(`${toolServer()}/__calls`)).json()) as { method: string; path: string }[];
  return calls.filter((c) => c.path.startsWith(prefix));
}

describe("the MCP client", () => {
  it("takes a 307 from the server as its answer: the server is unavailable, the target is never asked", async () => {
    const token = `mcp-307-${crypto.randomUUID()}`;
    await configure(toolConfig({ mcp_servers: [{ name: "docs", url: `${toolServer()}/moved/307/${token}/mcp/moved`, headers: {} }] }));
    const { status, body } = await parallel("mr1", { tool_calls: [call("docs__search", { query: "x" })] });
    expect(status).toBe(502);
    expect(body.error).toMatchObject({ code: "mcp_unavailable", server: "docs" });
    expect(body.error.message).toContain("HTTP 307");
    expect(await requestsTo(`/landed/${token}/`)).toEqual([]);
  });
});
