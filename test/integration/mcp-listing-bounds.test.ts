/**
 * A hostile MCP server's listing stays bounded (docs/api.md#mcp-servers): 20,000 tools in one
 * megabyte-sized page, a server that pages forever, pages past 1 MB. fanout keeps what its
 * bounds allow, answers the tenant at once, and never has more than 2 requests open to the server.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_KEYS } from "../setup/bindings";
import { api, configure, json, toolConfig, toolServer } from "../helpers";

afterEach(async () => {
  await reset();
});

const fake = (path: string, instance: string, init?: RequestInit) =>
  fetch(`${toolServer()}/__mcp/${path}?instance=${instance}`, init);
const setMcp = (instance: string, state: Record<string, unknown>) =>
  fake("state", instance, { method: "POST", body: JSON.stringify(state) });
const listed = async (instance: string) =>
  (await (await fake("lists", instance)).json()) as { lists: number; maxOpen: number };
const docsTools = async (key?: string) =>
  ((await json(await api("/v1/tools", key ? { key } : {}))).tools as any[])
    .map((t) => t.function.name as string)
    .filter((n) => n.startsWith("docs__"));
const withDocs = (instance: string) =>
  configure(toolConfig({ mcp_servers: [{ name: "docs", url: `${toolServer()}/mcp/${instance}` }] }));

describe("a hostile MCP listing", () => {
  it("20,000 tools in one page of 1 MB: the first 256 are kept, and another tenant is answered at once", async () => {
    await setMcp("huge", { listing: { tools: 20_000 } });
    await withDocs("huge");
    await configure(toolConfig(), TEST_KEYS.globex);
    const [tools, other] = await Promise.all([
      docsTools(),
      (async () => {
        const at = Date.now();
        const res = await api("/v1/tools", { key: TEST_KEYS.globex });
        return { status: res.status, ms: Date.now() - at };
      })(),
    ]);
    console.log(`20,000-tool listing: the other tenant's GET /v1/tools ${other.ms} ms`);
    expect(tools).toHaveLength(256);
    expect(tools[0]).toBe("docs__t0");
    expect(tools[255]).toBe("docs__t255");
    expect(other.status).toBe(200);
    expect(other.ms).toBeLessThan(2000);
    expect((await listed("huge")).maxOpen).toBeLessThanOrEqual(2);
  });

  it("a server that pages forever is read for 20 pages", async () => {
    await setMcp("endless", { listing: { tools: 1_000_000, perPage: 5, endless: true } });
    await withDocs("endless");
    expect(await docsTools()).toHaveLength(100);
    expect((await listed("endless")).lists).toBe(20);
    expect((await listed("endless")).maxOpen).toBeLessThanOrEqual(2);
  });

  it("pages past 1 MB are not read; the pages before them are kept", async () => {
    // About 300 KB a page: the fourth crosses 1 MB.
    await setMcp("heavy", { listing: { tools: 100, perPage: 10, descriptionChars: 30_000 } });
    await withDocs("heavy");
    const tools = await docsTools();
    expect(tools).toHaveLength(30);
    expect((await listed("heavy")).lists).toBe(4);
    // Kept descriptions are cut to 2,000 characters.
    const { tools: defs } = await json(await api("/v1/tools"));
    expect((defs as any[]).find((t) => t.function.name === "docs__t0").function.description).toHaveLength(2_000);
  });
});
