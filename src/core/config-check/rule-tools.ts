/**
 * What the `tools` lists of flow and approval rules name (docs/api.md#rules-must-name-something).
 * A rule that names no tool fails open: `approvals: [{"tools": ["pay.charge", "send_emial"]}]` was
 * stored, matched no call (calls run as `pay__charge` and `send_email`), and the payment ran
 * unapproved. So each entry is spelled as calls are stored (`pay.charge` is `pay__charge`), and an
 * entry that matches no tool the tenant has is refused with the name it most likely meant.
 */
import { LLM_FLOW_NAME } from "../flow/rules";
import { SUBORDINATE_TOOLS } from "../subagents/args";
import { HTTP_REQUEST_TOOL, WAIT_TOOL } from "../tools/builtins";
import { matchGlob, matchGlobPrefix } from "../tools/glob";
import { canonicalToolName, mcpToolName } from "../tools/mcp";
import { closestName } from "../util/closest-name";
import type { TenantConfig } from "../config/schema";

/** Tools every tenant has, whatever its config lists. */
const BUILT_IN_CALLS = [WAIT_TOOL.name, HTTP_REQUEST_TOOL.name, ...SUBORDINATE_TOOLS];

/**
 * Glob comparisons one document's rules may take (about 5 ms): a crafted document of 32 rules ×
 * 64 globs against 256 tools and 32 servers could take 100 times that. Plain names cost none.
 */
const MATCH_COMPARISONS = 400_000;

/** Entries that match nothing get a near name offered, up to this many a document. */
const SUGGESTIONS = 5;

const isGlob = (entry: string) => entry.includes("*") || entry.includes("?");
const ASCII = /^[\x20-\x7e]*$/;

/** `config` with each rule's tools spelled as calls are: `docs.search` is `docs__search`. */
export function withCanonicalRuleTools(config: TenantConfig): TenantConfig {
  const canonical = (tools: string[]) => tools.map((entry) => canonicalToolName(entry, config));
  return {
    ...config,
    flow: config.flow?.map((rule) => ({ ...rule, tools: canonical(rule.tools) })),
    approvals: config.approvals?.map((rule) => ({ ...rule, tools: canonical(rule.tools) })),
  };
}

/**
 * Each rule entry (of a canonical config) that matches no tool the tenant has: its tools, the
 * built-ins, `llm` for flow, and any tool of a configured MCP server, listed yet or not.
 */
export function ruleToolProblems(config: TenantConfig): string[] {
  const names = [...config.tools.map((t) => t.name), ...BUILT_IN_CALLS];
  const serverPrefixes = config.mcp_servers.map((s) => mcpToolName(s.name, "").toLowerCase());
  let spent = 0;
  let suggested = 0;
  const metered = (result: { matched: boolean; comparisons: number }) => {
    spent += result.comparisons;
    return result.matched;
  };
  const matchesSome = (entry: string, candidates: readonly string[], plain: Set<string>) => {
    if (!isGlob(entry)) {
      // Names are ASCII, and globs fold no other letter into ASCII (glob.ts): neither does this.
      const folded = ASCII.test(entry) ? entry.toLowerCase() : "";
      return plain.has(folded) || serverPrefixes.some((p) => folded.length > p.length && folded.startsWith(p));
    }
    return (
      candidates.some((name) => metered(matchGlob(entry, name))) ||
      serverPrefixes.some((prefix) => metered(matchGlobPrefix(entry, prefix)))
    );
  };
  const problems = (path: string, tools: readonly string[], candidates: readonly string[]) => {
    const plain = new Set(candidates.map((name) => name.toLowerCase()));
    return tools.flatMap((entry) => {
      if (spent > MATCH_COMPARISONS || matchesSome(entry, candidates, plain)) return [];
      // A near name for the first few only: each costs an edit distance against every tool.
      const meant = suggested++ < SUGGESTIONS ? closestName(entry, candidates) : undefined;
      const hint = meant
        ? ` (did you mean ${JSON.stringify(meant)}?)`
        : "; name a tool of this configuration, a built-in, or <server>__<tool> of a configured MCP server";
      return [`${path}: ${JSON.stringify(entry)} matches no tool${hint}`];
    });
  };
  const found = [
    ...config.approvals.flatMap((rule, i) => problems(`approvals.${i}.tools`, rule.tools, names)),
    ...config.flow.flatMap((rule, i) => problems(`flow.${i}.tools`, rule.tools, [...names, LLM_FLOW_NAME])),
  ];
  if (spent > MATCH_COMPARISONS) {
    return [
      "approvals, flow: the rules' tool globs take more work to check than fanout spends on one document; use fewer or simpler globs",
    ];
  }
  return found;
}
