/**
 * The regular expressions inside a tool's JSON Schema, and the bounds fanout
 * puts on running them (SPEC §2.1): a `pattern` (or `patternProperties` key)
 * whose shape can backtrack is refused at `PUT`/`PATCH /v1/config` and leaves
 * an MCP tool out of its list; the others are run only on strings of at most
 * 10,000 characters, so no model-written argument holds the isolate.
 */
import { isObject } from "../parallel/normalize-call";
import { backtrackingReason } from "./regex-shape";

/** Longest string (or property name) checked against a schema that has patterns. */
export const MAX_PATTERN_INPUT_CHARS = 10_000;

export interface SchemaPattern {
  /** JSON pointer of the keyword, e.g. `/properties/q/pattern`. */
  pointer: string;
  pattern: string;
}

const SUBSCHEMA = ["additionalProperties", "items", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Every pattern where a validator would run one; `const`, `enum` and `default` values are data, not schemas. */
export function schemaPatterns(schema: unknown): SchemaPattern[] {
  const found: SchemaPattern[] = [];
  const stack: [unknown, string][] = [[schema, ""]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (!isObject(node)) continue;
    if (typeof node.pattern === "string") found.push({ pointer: `${at}/pattern`, pattern: node.pattern });
    if (isObject(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties)) found.push({ pointer: `${at}/patternProperties/${escape(key)}`, pattern: key });
    }
    for (const k of SUBSCHEMA) if (isObject(node[k])) stack.push([node[k], `${at}/${k}`]);
    for (const k of SUBSCHEMA_LISTS) {
      const list = node[k];
      if (Array.isArray(list)) list.forEach((s, i) => stack.push([s, `${at}/${k}/${i}`]));
    }
    for (const k of SUBSCHEMA_MAPS) {
      const map = node[k];
      if (isObject(map)) for (const [key, s] of Object.entries(map)) stack.push([s, `${at}/${k}/${escape(key)}`]);
    }
  }
  return found;
}

/** Patterns that could backtrack, each with the reason; empty when the schema is safe to run. */
export function backtrackingPatterns(schema: unknown): (SchemaPattern & { reason: string })[] {
  return schemaPatterns(schema).flatMap((p) => {
    const reason = backtrackingReason(p.pattern);
    return reason ? [{ ...p, reason }] : [];
  });
}

/** The JSON pointer of the first string or property name in `value` longer than `limit`, if any. */
export function overlongString(value: unknown, limit = MAX_PATTERN_INPUT_CHARS): string | undefined {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node === "string") {
      if (node.length > limit) return at || "/";
    } else if (Array.isArray(node)) {
      node.forEach((v, i) => stack.push([v, `${at}/${i}`]));
    } else if (isObject(node)) {
      for (const [key, v] of Object.entries(node)) {
        if (key.length > limit) return `${at}/${escape(key.slice(0, 20))}…`;
        stack.push([v, `${at}/${escape(key)}`]);
      }
    }
  }
  return undefined;
}
