/**
 * Schema patterns run on RE2 (the `re2js` port), never on V8's backtracking `RegExp`
 * (docs/api.md#tool-schema-safety). Tool schemas come from tenants and MCP servers, strings from
 * models, and they meet in an isolate other tenants share: `.{5000}y` passed the shape check
 * fanout used before, and fifty of them against 10,000 characters held the isolate for 10 s.
 *
 * RE2 matches in time linear in the text, but the factor is the pattern's program size, and in
 * JavaScript it is large: a pattern whose DFA meets a new state at every character builds each
 * state from up to the whole program. So besides refusing what RE2 cannot run (backreferences,
 * lookaround, counts over 1,000), the checks of one request share a work meter
 * (`PatternMeter`): each pattern test costs its program size times the text's length, each
 * compilation its size times what compiling costs, both charged before the work is done, and a
 * check that would take the request past `MATCH_BUDGET` is refused.
 *
 * The meter was once per call: `(?:a?){490}a{490}` on 124 characters stayed within it and cost
 * 13–15 ms per call in workerd, so 32 calls held the isolate for 480 ms. Measured in workerd: one
 * unit costs about 50 ns where the DFA builds a state per character (the worst case), so a
 * request's budget is about 15 ms of pattern work, whatever its calls are.
 *
 * `@cfworker/json-schema` calls `new RegExp(pattern, "u")` for `pattern` and `patternProperties`
 * and has no option for another engine, so `runWithLinearPatterns` points the global `RegExp` at
 * RE2 for the length of one synchronous validation; no other code runs in between, regular
 * expression literals still build V8's own, and the global is restored in `finally`.
 */
import { parse, type AstNode, type RootNode } from "regjsparser";
import { RE2JS } from "re2js";

/** Longer patterns are refused before compiling. */
export const MAX_PATTERN_CHARS = 1024;

/** RE2 program steps of one pattern (`.{1000}` is about 1,000). */
export const MAX_PATTERN_PROGRAM = 2_000;

/** Work the checks of one request may do together: program steps × characters matched, plus compilations. */
export const MATCH_BUDGET = 300_000;

/** Compiling costs about 25 matched characters per program step (1–2.4 µs per step cold, in V8). */
const COMPILE_COST_PER_STEP = 25;

/** Program steps of all patterns in one schema: compiling them all cold fits in one request's budget. */
export const MAX_SCHEMA_PROGRAM = 10_000;

/** Program steps of all patterns in a configuration, or in one MCP server's list (about 30 ms to compile). */
export const MAX_CONFIG_PROGRAM = 50_000;

/** A check stopped because its patterns would have taken the request past `MATCH_BUDGET`. */
export class PatternBudgetExceeded extends Error {}

/** The pattern work one request (or one model step) may do, shared by the checks of all its calls. */
export class PatternMeter {
  #spent = 0;

  constructor(readonly budget = MATCH_BUDGET) {}

  /** Work done so far. */
  get spent(): number {
    return this.#spent;
  }

  /** Counts `work` before it is done; throws when it would take the request past its budget. */
  charge(work: number): void {
    if (this.#spent + work > this.budget) {
      this.#spent = this.budget;
      throw new PatternBudgetExceeded();
    }
    this.#spent += work;
  }
}

/** JavaScript's whitespace, which `\s` means there (RE2's `\s` is ASCII only). */
const JS_SPACE = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";

/**
 * `pattern` with the JavaScript meaning of `.` (no line terminator: `\r`, U+2028 and U+2029 too,
 * where RE2's excludes only `\n`) and of `\s` / `\S` (Unicode whitespace), so `^.+$` keeps
 * refusing a value with a CR in it. `\S` inside a class keeps RE2's meaning (no nested classes there).
 */
function withJsMeanings(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      i++;
      if (next === "s") out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === "S" && !inClass) out += `[^${JS_SPACE}]`;
      else out += ch + next;
    } else if (ch === "[" && !inClass) {
      inClass = true;
      out += ch;
    } else if (ch === "]" && inClass) {
      inClass = false;
      out += ch;
    } else if (ch === "." && !inClass) {
      out += "[^\\n\\r\\u2028\\u2029]";
    } else out += ch;
  }
  return out;
}

/** RE2 reads most of JavaScript's syntax; the rest (`\u{…}`, `(?<name>…)`, `\cX`) is translated first. */
function compile(pattern: string): RE2JS {
  return RE2JS.compile(RE2JS.translateRegExp(withJsMeanings(pattern)));
}

const FEATURES = { namedGroups: true, lookbehind: true, unicodePropertyEscape: true } as const;
type Node = AstNode<typeof FEATURES>;

/**
 * About as many steps as RE2 compiles `node` to: counted repetitions multiply what they
 * repeat. Compiling costs time in proportion to the steps (`a{1000}b{1000}…` in 1,024
 * characters compiles to 146,000 in 190 ms), so oversized patterns are refused before that.
 */
function estimatedSteps(node: Node | RootNode<typeof FEATURES>): number {
  switch (node.type) {
    case "quantifier": {
      const count = node.max === undefined || node.max === Infinity ? Math.max(node.min, 1) : node.max;
      return count * estimatedSteps(node.body[0]) + 1;
    }
    case "alternative":
    case "disjunction":
    case "group":
      return node.body.reduce((n: number, child: Node) => n + estimatedSteps(child), 1);
    default:
      return 1;
  }
}

/** The steps `pattern` will compile to, estimated from its text alone (0 when it is not a valid pattern). */
export function estimateSteps(pattern: string): number {
  if (pattern.length > MAX_PATTERN_CHARS) return 0;
  try {
    return estimatedSteps(parse(pattern, "u", FEATURES));
  } catch {
    return 0;
  }
}

/** Why `pattern` cannot serve in a schema, or the steps RE2 runs it in. */
export function checkPattern(pattern: string): { steps: number } | { problem: string } {
  if (pattern.length > MAX_PATTERN_CHARS) return { problem: `is longer than ${MAX_PATTERN_CHARS} characters` };
  try {
    // Models read the schema too: a pattern must be a valid ECMA-262 one, whatever RE2 would accept.
    new RegExp(pattern, "u");
  } catch (e) {
    return { problem: `is not a valid regular expression (${(e as Error).message})` };
  }
  const tooMany = (steps: number) => ({
    problem: `compiles to about ${steps} steps, more than the ${MAX_PATTERN_PROGRAM} fanout runs per pattern; use smaller counts or fewer alternatives`,
  });
  const estimate = estimateSteps(pattern);
  if (estimate > MAX_PATTERN_PROGRAM) return tooMany(estimate);
  let steps: number;
  try {
    steps = compile(pattern).programSize();
  } catch (e) {
    return {
      problem: `cannot run in linear time (${(e as Error).message}); backreferences, lookahead, lookbehind and counts over 1000 are not supported`,
    };
  }
  return steps > MAX_PATTERN_PROGRAM ? tooMany(steps) : { steps };
}

/**
 * Compiled patterns kept between validations: a test of a short text costs about 1 µs, compiling
 * 30 µs to 3 ms. RE2 keeps a DFA state per new position it meets, so an entry that has done
 * `CACHED_WORK_LIMIT` of work is compiled afresh: the cache holds a few MB at most.
 */
const CACHE_SIZE = 32;
const CACHED_WORK_LIMIT = 20_000;
const cache = new Map<string, { re: RE2JS; work: number }>();

/** Program sizes of patterns compiled before, so a recompilation is charged before it runs. */
const SIZES_KEPT = 256;
const sizes = new Map<string, number>();

function programFor(source: string, meter: PatternMeter): { re: RE2JS; work: number } {
  let entry = cache.get(source);
  cache.delete(source);
  if (!entry || entry.work > CACHED_WORK_LIMIT) {
    // Charged before compiling: a refused check must not have paid for the compilation anyway.
    const known = sizes.get(source);
    meter.charge((known ?? (estimateSteps(source) || MAX_PATTERN_PROGRAM)) * COMPILE_COST_PER_STEP);
    const re = compile(source);
    if (known === undefined) {
      sizes.set(source, re.programSize());
      if (sizes.size > SIZES_KEPT) sizes.delete(sizes.keys().next().value!);
    }
    entry = { re, work: 0 };
  }
  cache.set(source, entry);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return entry;
}

/**
 * Runs `validate` (synchronous) with every `new RegExp` it makes served by RE2, its work counted
 * on `meter` (by default one of its own). Throws `PatternBudgetExceeded` when the meter runs out.
 */
export function runWithLinearPatterns<T>(validate: () => T, meter = new PatternMeter()): T {
  // Called with `new`: returning an object makes that object the result.
  function LinearRegExp(source: string) {
    const entry = programFor(String(source), meter);
    return {
      test(text: string) {
        const work = entry.re.programSize() * (text.length + 1);
        meter.charge(work);
        entry.work += work;
        return entry.re.test(text);
      },
    };
  }
  const native = globalThis.RegExp;
  globalThis.RegExp = LinearRegExp as unknown as RegExpConstructor;
  try {
    return validate();
  } finally {
    globalThis.RegExp = native;
  }
}
