import { describe, expect, it } from "vitest";
import { checkConfig } from "../../src/core/config-check/validate";
import { ruleToolProblems, withCanonicalRuleTools } from "../../src/core/config-check/rule-tools";
import { configSchema } from "../../src/core/config/schema";
import { closestName, editDistance } from "../../src/core/util/closest-name";
import { matchGlobPrefix } from "../../src/core/tools/glob";

const tool = (name: string) => ({ name, url: "https://tools.example/t" });
const config = (over: Record<string, unknown>) =>
  configSchema.parse({
    tools: [tool("send_email"), tool("search")],
    mcp_servers: [{ name: "pay", url: "https://pay.example/mcp" }],
    ...over,
  });
const problemsOf = (over: Record<string, unknown>) => ruleToolProblems(withCanonicalRuleTools(config(over)));

describe("rules must name something", () => {
  it("spells a rule's entries as calls are stored: pay.charge is pay__charge", () => {
    const canonical = withCanonicalRuleTools(
      config({
        approvals: [{ tools: ["pay.charge", "pay.*", "send_email"] }],
        flow: [{ name: "f", tools: ["pay.refund"], concurrency: 1 }],
      }),
    );
    expect(canonical.approvals[0]!.tools).toEqual(["pay__charge", "pay__*", "send_email"]);
    expect(canonical.flow[0]!.tools).toEqual(["pay__refund"]);
  });

  it("accepts tenant tools, built-ins, llm in flow, and any tool or glob under a configured MCP server", () => {
    expect(
      problemsOf({
        approvals: [
          {
            tools: [
              "Send_Email",
              "search",
              "wait",
              "http_request",
              "spawn_task",
              "call_subordinate",
              "pay__charge",
              "pay.anything",
              "pay__*",
              "p*",
              "*",
            ],
          },
        ],
        flow: [{ name: "model", tools: ["llm", "*__charge", "se?rch"], concurrency: 1 }],
      }),
    ).toEqual([]);
  });

  it("refuses each entry that matches nothing, with the name it most likely meant", () => {
    expect(problemsOf({ approvals: [{ tools: ["send_emial"] }] })).toEqual([
      'approvals.0.tools: "send_emial" matches no tool (did you mean "send_email"?)',
    ]);
    expect(problemsOf({ approvals: [{ tools: ["search", "Send-Email"] }] })).toEqual([
      'approvals.0.tools: "Send-Email" matches no tool (did you mean "send_email"?)',
    ]);
    expect(
      problemsOf({
        flow: [
          { name: "f", tools: ["search"], concurrency: 1 },
          { name: "g", tools: ["llm", "llms"], concurrency: 1 },
        ],
      }),
    ).toEqual(['flow.1.tools: "llms" matches no tool (did you mean "llm"?)']);
  });

  it("says what a rule may name when nothing is near", () => {
    expect(problemsOf({ approvals: [{ tools: ["refund.*"] }] })).toEqual([
      'approvals.0.tools: "refund.*" matches no tool; name a tool of this configuration, a built-in, or <server>__<tool> of a configured MCP server',
    ]);
    // A server's prefix alone is no tool of it, and `llm` is no call a person approves or a tool.
    expect(problemsOf({ approvals: [{ tools: ["pay__"] }] })).toHaveLength(1);
    expect(
      problemsOf({ approvals: [{ tools: ["pay__charge"] }], flow: [{ name: "f", tools: ["wait*"], concurrency: 1 }] }),
    ).toEqual([]);
  });

  it("is the check every stored document passes, so a PATCH that removes a named tool is refused too", () => {
    const checked = checkConfig({ tools: [tool("search")], approvals: [{ tools: ["send_email"] }] }, false);
    expect(checked).toEqual({
      ok: false,
      problems: [
        'approvals.0.tools: "send_email" matches no tool; name a tool of this configuration, a built-in, or <server>__<tool> of a configured MCP server',
      ],
    });
    const stored = checkConfig(
      {
        tools: [tool("send_email")],
        mcp_servers: [{ name: "pay", url: "https://pay.example/mcp" }],
        approvals: [{ tools: ["pay.charge"] }],
      },
      false,
    );
    expect(stored.ok && stored.config.approvals[0]!.tools).toEqual(["pay__charge"]);
  });

  it("bounds the work a crafted document's globs take", () => {
    // Every entry is walked over 32 long server names before it is found to match nothing.
    const servers = Array.from({ length: 32 }, (_, i) => ({
      name: `${"s".repeat(44)}${i}`,
      url: "https://mcp.example/mcp",
    }));
    const rules = Array.from({ length: 32 }, () => ({ tools: Array.from({ length: 64 }, () => "*?".repeat(64)) }));
    const problems = ruleToolProblems(configSchema.parse({ mcp_servers: servers, approvals: rules }));
    expect(problems).toEqual([expect.stringMatching(/take more work to check than fanout spends on one document/)]);
  });
});

describe("matchGlobPrefix", () => {
  it("answers whether a glob matches a longer name that starts with the prefix", () => {
    expect(matchGlobPrefix("docs__*", "docs__").matched).toBe(true);
    expect(matchGlobPrefix("DOCS__find", "docs__").matched).toBe(true);
    expect(matchGlobPrefix("*", "docs__").matched).toBe(true);
    expect(matchGlobPrefix("d?cs_*", "docs__").matched).toBe(true);
    expect(matchGlobPrefix("*__search", "docs__").matched).toBe(true);
    expect(matchGlobPrefix("docs__", "docs__").matched).toBe(false);
    expect(matchGlobPrefix("doc__*", "docs__").matched).toBe(false);
    expect(matchGlobPrefix("search", "docs__").matched).toBe(false);
  });

  it("takes at most (|prefix| + 1) × (|glob| + 1) steps", () => {
    const glob = "*a".repeat(64);
    expect(matchGlobPrefix(glob, "a".repeat(50)).comparisons).toBeLessThanOrEqual(51 * 129 * 2);
  });
});

describe("closestName", () => {
  it("offers a near name, case ignored, a swap counting as one edit", () => {
    expect(closestName("send_emial", ["search", "send_email"])).toBe("send_email");
    expect(closestName("SEARCH", ["search"])).toBe("search");
    expect(editDistance("ab", "ba", 3)).toBe(1);
    expect(editDistance("kitten", "sitting", 5)).toBe(3);
  });

  it("offers nothing far or for short words", () => {
    expect(closestName("refund", ["search", "send_email"])).toBeUndefined();
    expect(closestName("ab", ["ac"])).toBeUndefined();
    expect(editDistance("a", "abcdef", 2)).toBe(3);
  });
});
