import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/core/config/schema";
import { toolsForAgent } from "../../src/core/tools/catalog";
import {
  callOutcome,
  canonicalToolName,
  exposedTools,
  keptTool,
  serversNamedIn,
  splitMcpName,
  type McpTool,
} from "../../src/core/tools/mcp";

const server = (name: string) => ({ name, url: `https://mcp.example/${name}` });
const config = configSchema.parse({
  mcp_servers: [server("docs"), server("docs_v2"), server("web")],
  agents: { reader: { description: "r", tools: ["docs__s*"] } },
});
const mcpTool = (name: string, read_only = false): McpTool => ({
  name,
  description: `d ${name}`,
  parameters: { type: "object" },
  read_only,
});

describe("MCP tool names", () => {
  it("split in either spelling, the longest configured server winning", () => {
    expect(splitMcpName("docs__search", config)).toEqual({ server: "docs", tool: "search" });
    expect(splitMcpName("docs.search", config)).toEqual({ server: "docs", tool: "search" });
    expect(splitMcpName("docs_v2__search", config)).toEqual({ server: "docs_v2", tool: "search" });
    expect(splitMcpName("docs__a__b", config)).toEqual({ server: "docs", tool: "a__b" });
  });

  it("are not MCP names without a configured server or a tool part", () => {
    expect(splitMcpName("mail__send", config)).toBeUndefined();
    expect(splitMcpName("docs__", config)).toBeUndefined();
    expect(splitMcpName("docs", config)).toBeUndefined();
  });

  it("are stored in the model-facing spelling", () => {
    expect(canonicalToolName("web.fetch", config)).toBe("web__fetch");
    expect(canonicalToolName("web__fetch", config)).toBe("web__fetch");
    expect(canonicalToolName("echo", config)).toBe("echo");
  });

  it("leave out tools whose exposed name OpenAI would refuse", () => {
    const tools = [mcpTool("ok-name"), mcpTool("has.dot"), mcpTool("x".repeat(60))];
    expect(exposedTools("docs", tools).map((t) => t.name)).toEqual(["ok-name"]);
  });
});

describe("servers a request names", () => {
  it("are found in tool names and tools lists, in either spelling", () => {
    const body = {
      tool_calls: [
        { tool_name: "web.fetch", tool_args: {} },
        { tool_name: "spawn_task", tool_args: { tools: ["docs__search"] } },
      ],
    };
    expect(serversNamedIn(body, config)).toEqual(["docs", "web"]);
  });

  it("are none for a tenant without MCP servers, or a body naming none", () => {
    expect(serversNamedIn({ tool_calls: [{ tool_name: "docs__x" }] }, configSchema.parse({}))).toEqual([]);
    expect(serversNamedIn({ tool_calls: [{ tool_name: "echo", tool_args: { q: "docs" } }] }, config)).toEqual([]);
  });
});

describe("a tools/list entry", () => {
  it("keeps its schema without $schema and reads readOnlyHint; absent means not read-only", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { q: { type: "string" } },
    };
    expect(keptTool({ name: "s", description: "S", inputSchema: schema, annotations: { readOnlyHint: true } })).toEqual(
      {
        name: "s",
        description: "S",
        parameters: { type: "object", properties: { q: { type: "string" } } },
        read_only: true,
      },
    );
    expect(keptTool({ name: "w", inputSchema: { type: "object" } })).toMatchObject({
      description: "",
      read_only: false,
    });
  });
});

describe("a tools/call result", () => {
  it("keeps no parts when they are all text: the result is their text", () => {
    expect(
      callOutcome({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({ state: "success", result: "a\nb" });
  });

  it("reads as text with placeholders, and keeps its parts as sent", () => {
    const image = { type: "image", data: "AAAA", mimeType: "image/png" };
    const content = [{ type: "text", text: "a" }, image, { type: "text", text: "b" }];
    expect(callOutcome({ content })).toEqual({ state: "success", result: "a\n[image image/png, 3 B]\nb", content });
  });

  it("falls back to structuredContent, then to an empty result", () => {
    expect(callOutcome({ content: [], structuredContent: { n: 1 } })).toEqual({ state: "success", result: '{"n":1}' });
    expect(callOutcome({})).toEqual({ state: "success", result: "" });
  });

  it("is an error when isError is set, with the server's text or a plain explanation", () => {
    const content = [{ type: "text", text: "quota exceeded" }];
    expect(callOutcome({ content, isError: true })).toEqual({
      state: "error",
      error: "quota exceeded",
      error_type: "tool_error",
    });
    expect(callOutcome({ isError: true })).toEqual({
      state: "error",
      error: "The MCP tool reported an error without a message.",
      error_type: "tool_error",
    });
  });
});

describe("the catalog with MCP lists", () => {
  it("adds listed tools after the tenant's, skips unavailable servers and applies the profile's globs", () => {
    const mcp = {
      docs: { tools: [mcpTool("search", true), mcpTool("write")], fetched_at: 0 },
      web: { unavailable: "MCP server 'web' could not be listed: down" },
    };
    const all = toolsForAgent(config, "default", mcp);
    expect(all.map((t) => t.name)).toEqual(["wait", "docs__search", "docs__write"]);
    expect(all.map((t) => [t.kind, t.readOnly({})])).toEqual([
      ["wait", true],
      ["mcp", true],
      ["mcp", false],
    ]);
    expect(toolsForAgent(config, "reader", { docs: mcp.docs }).map((t) => t.name)).toEqual(["wait", "docs__search"]);
    expect(toolsForAgent(config, "default").map((t) => t.name)).toEqual(["wait"]);
  });
});
