import { describe, expect, it } from "vitest";
import { keptTools } from "../../src/tools/mcp";
import { backtrackingPatterns, overlongString, schemaPatterns } from "../../src/tools/schema-patterns";

describe("schemaPatterns", () => {
  it("finds patterns wherever a validator runs them, with their JSON pointers", () => {
    const schema = {
      type: "object",
      properties: { "a/b": { type: "string", pattern: "^x$" }, list: { type: "array", items: { pattern: "^i$" } } },
      patternProperties: { "^p_": { type: "string" } },
      anyOf: [{ pattern: "^any$" }],
      $defs: { d: { not: { pattern: "^not$" } } },
      additionalProperties: { propertyNames: { pattern: "^k$" } },
    };
    expect(schemaPatterns(schema).map((p) => [p.pointer, p.pattern]).sort()).toEqual(
      [
        ["/$defs/d/not/pattern", "^not$"],
        ["/additionalProperties/propertyNames/pattern", "^k$"],
        ["/anyOf/0/pattern", "^any$"],
        ["/patternProperties/^p_", "^p_"],
        ["/properties/a~1b/pattern", "^x$"],
        ["/properties/list/items/pattern", "^i$"],
      ].sort(),
    );
  });

  it("treats const, enum, default and examples as data, and a property named pattern as a property", () => {
    const schema = {
      type: "object",
      properties: { pattern: { type: "string" } },
      const: { pattern: "(a+)+" },
      enum: [{ pattern: "(a+)+" }],
      default: { pattern: "(a+)+" },
      examples: [{ pattern: "(a+)+" }],
    };
    expect(schemaPatterns(schema)).toEqual([]);
    expect(backtrackingPatterns(schema)).toEqual([]);
  });

  it("reports each pattern that can backtrack with its reason", () => {
    const found = backtrackingPatterns({ properties: { a: { pattern: "^(a+)+$" }, b: { pattern: "^[a-z]+$" } } });
    expect(found).toEqual([{ pointer: "/properties/a/pattern", pattern: "^(a+)+$", reason: expect.stringContaining("repeats a part") }]);
  });
});

describe("overlongString", () => {
  it("finds the first string or property name past the limit, by pointer", () => {
    expect(overlongString({ a: "x".repeat(10), b: ["ok", "y".repeat(11)] }, 10)).toBe("/b/1");
    expect(overlongString({ ["k".repeat(30)]: 1 }, 10)).toBe(`/${"k".repeat(20)}…`);
    expect(overlongString("z".repeat(11), 10)).toBe("/");
    expect(overlongString({ a: "x".repeat(10), n: 12345678901 }, 10)).toBeUndefined();
  });
});

describe("keptTools", () => {
  it("leaves out a tool whose input or output schema has a pattern that can backtrack, with a log line", () => {
    const listed = [
      { name: "ok", inputSchema: { type: "object", properties: { q: { type: "string", pattern: "^[a-z]+$" } } } },
      { name: "bad_in", inputSchema: { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } } } },
      { name: "bad_out", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { r: { pattern: "(a|a)*" } } } },
    ];
    const { tools, leftOut } = keptTools("docs", listed);
    expect(tools.map((t) => t.name)).toEqual(["ok"]);
    expect(leftOut).toEqual([
      expect.stringMatching(/^MCP server 'docs': tool 'bad_in' left out: its schema's pattern "\^\(a\+\)\+\$" repeats a part/),
      expect.stringMatching(/^MCP server 'docs': tool 'bad_out' left out: its schema's pattern "\(a\|a\)\*" repeats alternatives/),
    ]);
  });
});
