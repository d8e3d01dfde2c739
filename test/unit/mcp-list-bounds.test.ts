import { describe, expect, it } from "vitest";
import { keptTools, MCP_LIST_BOUNDS } from "../../src/core/tools/mcp-list-bounds";

const tool = (name: string, inputSchema: Record<string, unknown> = { type: "object" }, description = "") => ({
  name,
  description,
  inputSchema,
});

describe("keptTools", () => {
  it("reports 20,000 tools in one line, not one per tool past the 256 kept", () => {
    const listed = Array.from({ length: 20_000 }, (_, i) => tool(`t${i}`));
    const { tools, report } = keptTools("docs", listed);
    expect(tools).toHaveLength(MCP_LIST_BOUNDS.tools);
    expect(report).toBe(
      "MCP server 'docs': kept 256 tools; left out 19744 of 20000 tools: 19744 past the 256 kept of a server (first 't256').",
    );
  });

  it("says nothing when it keeps every tool whole", () => {
    expect(keptTools("docs", [tool("a"), tool("b")])).toEqual({
      tools: [expect.objectContaining({ name: "a" }), expect.objectContaining({ name: "b" })],
    });
  });

  it("leaves out long names and large schemas, cuts long descriptions, and quotes at most 64 characters of a name", () => {
    const long = "n".repeat(250_000);
    const big = {
      type: "object",
      properties: { q: { type: "string", description: "d".repeat(MCP_LIST_BOUNDS.schemaBytes) } },
    };
    const listed = [tool(long), tool("big", big), tool("wordy", { type: "object" }, "w".repeat(5_000)), tool("ok")];
    const { tools, report } = keptTools("docs", listed);
    expect(tools.map((t) => t.name)).toEqual(["wordy", "ok"]);
    expect(tools[0]!.description).toHaveLength(MCP_LIST_BOUNDS.descriptionChars);
    expect(report).toBe(
      `MCP server 'docs': kept 2 tools; left out 2 of 4 tools: 1 with a name over 64 characters ('${"n".repeat(64)}…'); ` +
        "1 with an inputSchema over 16384 bytes ('big'); the descriptions of 1 cut to 2000 characters.",
    );
  });

  it("leaves out a tool whose input schema fanout cannot check safely, naming the first", () => {
    const listed = [
      tool("ok", { type: "object", properties: { q: { type: "string", pattern: "^[a-z]+$" } } }),
      tool("bad", { type: "object", properties: { q: { type: "string", pattern: "^(?=a)" } } }),
      tool("worse", { type: "object", properties: { q: { type: "string", pattern: "(a)\\1" } } }),
    ];
    const { tools, report } = keptTools("docs", listed);
    expect(tools.map((t) => t.name)).toEqual(["ok"]);
    expect(report).toMatch(
      /^MCP server 'docs': kept 1 tools; left out 2 of 3 tools: 2 whose inputSchema fanout cannot check safely \(first 'bad': inputSchema\/properties\/q\/pattern "\^\(\?=a\)" cannot run in linear time/,
    );
  });

  it("keeps at most 65,536 characters and 50,000 steps of patterns from one server's list", () => {
    // One character class of 996 letters: 1,000 characters, a few steps; four tools fit.
    const text = Object.fromEntries(
      Array.from({ length: 15 }, (_, k) => [`p${k}`, { type: "string", pattern: `^[${"a".repeat(996)}]$` }]),
    );
    expect(
      keptTools(
        "docs",
        Array.from({ length: 6 }, (_, i) => tool(`t${i}`, { type: "object", properties: text })),
      ).tools,
    ).toHaveLength(4);
    // Eight patterns of about 1,000 steps a tool: six tools fit, counted before anything compiles.
    const steps = Object.fromEntries(
      Array.from({ length: 8 }, (_, k) => [`p${k}`, { type: "string", pattern: "a{1000}" }]),
    );
    const { tools, report } = keptTools(
      "docs",
      Array.from({ length: 7 }, (_, i) => tool(`t${i}`, { type: "object", properties: steps })),
    );
    expect(tools).toHaveLength(6);
    expect(report).toBe(
      "MCP server 'docs': kept 6 tools; left out 1 of 7 tools: 1 past the 65536 characters or 50000 steps of patterns a server's schemas may hold ('t6').",
    );
  });

  it("a tool refused for its own patterns spends none of the server's allowance", () => {
    const huge = tool("huge", { type: "object", properties: { q: { type: "string", pattern: "(?:a{1000}){1000}" } } });
    const fine = tool("fine", { type: "object", properties: { q: { type: "string", pattern: "^[a-z]{1,16}$" } } });
    const { tools, report } = keptTools("docs", [huge, fine]);
    expect(tools.map((t) => t.name)).toEqual(["fine"]);
    expect(report).toMatch(
      /^MCP server 'docs': kept 1 tools; left out 1 of 2 tools: 1 whose inputSchema fanout cannot check safely \('huge': /,
    );
  });

  it("keeps the stored listing under 1 MB", () => {
    const schema = { type: "object", properties: { q: { type: "string", description: "d".repeat(15_000) } } };
    const { tools, report } = keptTools(
      "docs",
      Array.from({ length: 100 }, (_, i) => tool(`t${i}`, schema)),
    );
    expect(JSON.stringify(tools).length).toBeLessThanOrEqual(MCP_LIST_BOUNDS.storedBytes);
    expect(tools.length).toBeGreaterThan(50);
    expect(report).toMatch(/past the 1000000 bytes a stored listing may take \(first 't\d+'\)\.$/);
  });

  it("says where the listing stopped", () => {
    expect(keptTools("docs", [tool("a")], { pages: 20 }).report).toBe(
      "MCP server 'docs': kept 1 tools; pages after the first 20 not read.",
    );
    expect(keptTools("docs", [], { bytes: 1_048_576 }).report).toBe(
      "MCP server 'docs': kept 0 tools; the pages after the first 1048576 bytes not read.",
    );
  });
});
