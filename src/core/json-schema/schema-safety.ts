/**
 * What a tool's JSON Schema may ask of the validator (docs/api.md#tool-schema-safety). Tool schemas
 * come from tenants and MCP servers, arguments from models, and they meet in an
 * isolate other tenants share, so a schema is refused (at `PUT`/`PATCH`, or left
 * out of an MCP list) when checking arguments against it could run away:
 * - a `pattern` or `patternProperties` key RE2 cannot run, or one too large (./linear-patterns);
 * - references that fan out: `$defs.a0 = {anyOf: [{$ref: a1}, {$ref: a1}]}` twenty
 *   deep is 1.3 KB and took 3.4 s to validate `{}`, so a schema may expand to at
 *   most 1,000 subschemas through its `$ref`s, and only local ones (`#/…`) are followed;
 * - more pattern text than fanout checks in its CPU budget.
 * The validator resolves a `$ref` to any member of the document, not only to
 * known keywords, so every member is walked except the ones that hold data.
 *
 * Arguments are checked with every pattern on RE2 under a work meter the request's checks share
 * (`checkArguments`).
 *
 * Of the formats, those whose regular expressions are not of a fixed shape (`url`
 * backtracks exponentially; `uri`, `uri-reference`, `uri-template`) are left to
 * annotate, as JSON Schema 2020-12 makes every format by default, and so is `regex`, whose
 * check would compile the argument itself. Strings checked against a pattern or a format are
 * at most 10,000 characters.
 */
import { Validator, type OutputUnit, type Schema } from "@cfworker/json-schema";
import { isObject } from "../util/json";
import {
  checkPattern,
  estimateSteps,
  MAX_SCHEMA_PROGRAM,
  PatternBudgetExceeded,
  PatternMeter,
  runWithLinearPatterns,
} from "./linear-patterns";

/** Longest string (or property name) checked against a schema's patterns or formats. */
export const MAX_CHECKED_STRING_CHARS = 10_000;

/** Subschemas a schema may expand to through its references. */
export const MAX_EXPANDED_SUBSCHEMAS = 1_000;

/** Pattern text in one schema: each pattern costs a compilation when it is checked. */
export const MAX_PATTERN_TEXT_CHARS = 16_384;

/** Pattern text in a whole configuration, or in one MCP server's list. */
export const MAX_CONFIG_PATTERN_CHARS = 65_536;

/** Members that hold values, not subschemas: the validator never looks for a schema there. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/** Formats whose checks are regular expressions of a fixed shape (measured: under 0.1 ms at 10,000 characters). */
const ASSERTED_FORMATS = new Set([
  "date",
  "time",
  "date-time",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
  "json-pointer",
  "json-pointer-uri-fragment",
  "relative-json-pointer",
]);

const escapePointer = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Calls `visit` on every object of the schema a validator could treat as a subschema, with its JSON pointer. */
function walk(schema: unknown, visit: (node: Record<string, unknown>, at: string) => void): void {
  const stack: [unknown, string][] = [[schema, ""]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        stack.push([item, `${at}/${i}`]);
      });
    } else if (isObject(node)) {
      visit(node, at);
      for (const [key, value] of Object.entries(node)) {
        if (!DATA_KEYWORDS.has(key) && typeof value === "object" && value !== null)
          stack.push([value, `${at}/${escapePointer(key)}`]);
      }
    }
  }
}

export interface SchemaPattern {
  /** JSON pointer of the keyword, e.g. `/properties/q/pattern`. */
  pointer: string;
  pattern: string;
}

/** Every pattern where a validator would run one. */
export function schemaPatterns(schema: unknown): SchemaPattern[] {
  const found: SchemaPattern[] = [];
  walk(schema, (node, at) => {
    if (typeof node.pattern === "string") found.push({ pointer: `${at}/pattern`, pattern: node.pattern });
    if (isObject(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties))
        found.push({ pointer: `${at}/patternProperties/${escapePointer(key)}`, pattern: key });
    }
  });
  return found;
}

/** The RE2 program steps of every pattern in `schema`, estimated from their text. */
export function patternSteps(schema: unknown): number {
  return schemaPatterns(schema).reduce((n, p) => n + estimateSteps(p.pattern), 0);
}

/**
 * Why checking arguments against `schema` could run away, each as `<json pointer> <reason>`;
 * empty when the schema is safe to run.
 */
export function schemaHazards(schema: unknown): string[] {
  const patterns = schemaPatterns(schema);
  const text = patterns.reduce((n, p) => n + p.pattern.length, 0);
  if (text > MAX_PATTERN_TEXT_CHARS)
    return [`/ has ${text} characters of patterns; at most ${MAX_PATTERN_TEXT_CHARS} are checked`];
  // Estimated before anything compiles: compiling is the cost this bound keeps small.
  const steps = patternSteps(schema);
  if (steps > MAX_SCHEMA_PROGRAM) {
    return [
      `/ has patterns of about ${steps} steps in all; at most ${MAX_SCHEMA_PROGRAM} are run per call, so use fewer or smaller counts`,
    ];
  }
  const hazards = patterns.flatMap((p) => {
    const check = checkPattern(p.pattern);
    return "problem" in check ? [`${p.pointer} ${JSON.stringify(p.pattern)} ${check.problem}`] : [];
  });
  return [...hazards, ...referenceHazards(schema)];
}

/** Non-local references, and references that expand the schema past its bound. */
function referenceHazards(schema: unknown): string[] {
  const hazards: string[] = [];
  walk(schema, (node, at) => {
    if (typeof node.$ref === "string" && resolve(schema, node.$ref) === undefined) {
      hazards.push(`${at}/$ref ${JSON.stringify(node.$ref)} is not a local reference (#/…) to a part of this schema`);
    }
  });
  if (hazards.length > 0) return hazards;
  const size = expandedSize(schema);
  return size > MAX_EXPANDED_SUBSCHEMAS
    ? [
        `/ expands to more than ${MAX_EXPANDED_SUBSCHEMAS} subschemas through its $refs; reference each definition from fewer places`,
      ]
    : [];
}

function resolve(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * How many subschemas the validator may visit for one value: the schema with every `$ref`
 * replaced by what it points at. A reference back into its own path (a recursive schema)
 * counts once: the recursion is bounded by the depth of the arguments. Saturates past the bound.
 */
function expandedSize(root: unknown): number {
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  const size = (node: unknown): number => {
    if (typeof node !== "object" || node === null) return 0;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (open.has(node)) return 1;
    open.add(node);
    let n = Array.isArray(node) ? 0 : 1;
    for (const [key, value] of Object.entries(node)) {
      if (n > MAX_EXPANDED_SUBSCHEMAS) break;
      if (!DATA_KEYWORDS.has(key)) n += size(value);
    }
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === "string" && n <= MAX_EXPANDED_SUBSCHEMAS) n += size(resolve(root, ref));
    open.delete(node);
    const saturated = Math.min(n, MAX_EXPANDED_SUBSCHEMAS + 1);
    sizes.set(node, saturated);
    return saturated;
  };
  return size(root);
}

export interface RunnableSchema {
  /** The schema the validator runs: formats it does not assert removed. */
  schema: unknown;
  /** Strings are checked against a pattern or a format: their length is bounded. */
  checksStrings: boolean;
}

const runnable = new WeakMap<object, RunnableSchema>();

/** The schema as fanout runs it (cached per schema object: a batch checks many calls of one tool). */
export function runnableSchema(schema: Record<string, unknown>): RunnableSchema {
  let found = runnable.get(schema);
  if (!found) {
    const copy = structuredClone(schema);
    let checksStrings = false;
    walk(copy, (node) => {
      if (typeof node.format === "string") {
        if (ASSERTED_FORMATS.has(node.format)) checksStrings = true;
        else delete node.format;
      }
      if (typeof node.pattern === "string" || isObject(node.patternProperties)) checksStrings = true;
    });
    found = { schema: copy, checksStrings };
    runnable.set(schema, found);
  }
  return found;
}

/** Why a tenant tool's `parameters` cannot serve as a JSON Schema, or undefined when it can. */
export function unusableSchema(parameters: Record<string, unknown>): string | undefined {
  try {
    checkArguments(parameters, {});
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * `value` checked against `schema` as fanout runs it: patterns on RE2 under `meter` (the one the
 * request's checks share), stopping at the first failure where the validator can (it still tries
 * every `allOf` member; the meter bounds them). `budgetExceeded` when the patterns would take the
 * meter past its budget; throws when the schema itself cannot be applied.
 */
export function checkArguments(
  schema: Record<string, unknown>,
  value: unknown,
  meter = new PatternMeter(),
): { valid: boolean; errors: OutputUnit[]; budgetExceeded?: true } {
  const validator = new Validator(runnableSchema(schema).schema as Schema, "2020-12", true);
  try {
    return runWithLinearPatterns(() => validator.validate(value), meter);
  } catch (e) {
    if (e instanceof PatternBudgetExceeded) return { valid: false, errors: [], budgetExceeded: true };
    throw e;
  }
}

/** The JSON pointer of the first string or property name in `value` longer than `limit`, if any. */
export function overlongString(value: unknown, limit = MAX_CHECKED_STRING_CHARS): string | undefined {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node === "string") {
      if (node.length > limit) return at || "/";
    } else if (Array.isArray(node)) {
      node.forEach((v, i) => {
        stack.push([v, `${at}/${i}`]);
      });
    } else if (isObject(node)) {
      for (const [key, v] of Object.entries(node)) {
        if (key.length > limit) return `${at}/${escapePointer(key.slice(0, 20))}…`;
        stack.push([v, `${at}/${escapePointer(key)}`]);
      }
    }
  }
  return undefined;
}
