/**
 * Which flow rules a call is under, and its key under each (docs/api.md#flow-control). A call that
 * matches no rule is not touched by flow control at all: no request, no row.
 */
import { conditionHolds, type ConditionInput } from "../conditions/condition";
import type { FlowRule } from "../config/flow-rules";
import { globMatch } from "../tools/glob";

/** The name every model request of an agent loop runs as, for flow rules. */
export const LLM_FLOW_NAME = "llm";

/** A key longer than this is cut: keys name users and routes, not content. */
export const MAX_FLOW_KEY_CHARS = 256;

export interface FlowHold {
  rule: string;
  key: string;
}

/**
 * A call as flow rules see it: `tool` is the name it runs as (a tenant or MCP `server__tool` tool, a
 * built-in, or `llm`), `metadata` the batch's request metadata (null without any), `agent` the profile
 * making it. One object per call: the rules' conditions share its evaluation budget.
 */
export type FlowCall = ConditionInput;

/** The value a rule keys a call on, as text; `""` when the field is missing. */
export function flowKey(rule: Pick<FlowRule, "key">, call: FlowCall): string {
  if (!rule.key) return "";
  const [from, field] = rule.key.split(".", 2) as ["metadata" | "args", string];
  const source = from === "metadata" ? call.metadata : call.args;
  const value = source && Object.hasOwn(source, field) ? source[field] : undefined;
  if (value === undefined || value === null) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > MAX_FLOW_KEY_CHARS ? text.slice(0, MAX_FLOW_KEY_CHARS) : text;
}

/**
 * The rules `call` is under (its name matches, and the rule's `when` holds), with its key under each, in rule-name order: the first is where its
 * snapshot says it waits until it has asked (it asks them in `inAskingOrder`, by shard first).
 */
export function flowHolds(rules: readonly FlowRule[], call: FlowCall): FlowHold[] {
  return rules
    .filter((rule) => rule.tools.some((glob) => globMatch(glob, call.tool)) && conditionHolds(rule.when, call))
    .map((rule) => ({ rule: rule.name, key: flowKey(rule, call) }))
    .sort((a, b) => (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
}
