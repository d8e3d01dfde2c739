import { afterEach, describe, expect, it, vi } from "vitest";
import { RE2JS } from "re2js";
import {
  checkPattern,
  MATCH_BUDGET,
  MAX_PATTERN_PROGRAM,
  MAX_SCHEMA_PROGRAM,
  PatternBudgetExceeded,
  PatternMeter,
  runWithLinearPatterns,
} from "../../src/core/json-schema/linear-patterns";
import { checkArguments, schemaHazards } from "../../src/core/json-schema/schema-safety";

const patternProblem = (pattern: string) => {
  const check = checkPattern(pattern);
  return "problem" in check ? check.problem : undefined;
};

const nativeRegExp = RegExp;

/** What `new RegExp(pattern).test(text)` answers inside a metered validation. */
const linearTest = (pattern: string, text: string) => runWithLinearPatterns(() => new RegExp(pattern, "u").test(text));

describe("patternProblem", () => {
  it("accepts the shapes that backtrack in V8: RE2 runs them in linear time", () => {
    for (const p of ["^(a+)+$", "(a|ab)*c", "\\S+@\\S+", "^a*a*a*b$", "\\d+x", ".{1000}y", "(?:.{30}){30}z"]) {
      expect(patternProblem(p), p).toBeUndefined();
    }
  });

  it("refuses what RE2 cannot run, saying what is not supported", () => {
    for (const p of ["(a)\\1", "(?=a)b", "(?!a)b", "(?<=a)b", "(?<!a)b"]) {
      expect(patternProblem(p), p).toMatch(
        /^cannot run in linear time \(.*\); backreferences, lookahead, lookbehind and counts over 1000 are not supported$/,
      );
    }
  });

  it("refuses invalid, overlong and oversized patterns", () => {
    expect(patternProblem("(")).toMatch(/^is not a valid regular expression/);
    expect(patternProblem("a".repeat(1025))).toBe("is longer than 1024 characters");
    expect(patternProblem(".{5000}y")).toMatch(/^compiles to about 5003 steps/);
    expect(patternProblem("[a-z]{1000}[0-9]{1000}x")).toMatch(
      new RegExp(`^compiles to about \\d+ steps, more than the ${MAX_PATTERN_PROGRAM} fanout runs`),
    );
    // Refused from its shape, before RE2 compiles it (that alone took 190 ms).
    const huge = Array.from({ length: 146 }, (_, i) => `${String.fromCharCode(97 + (i % 26))}{1000}`).join("");
    expect(patternProblem(huge)).toBe(
      `compiles to about 146147 steps, more than the ${MAX_PATTERN_PROGRAM} fanout runs per pattern; use smaller counts or fewer alternatives`,
    );
  });

  it("counts a pattern's steps, and a schema's patterns together", () => {
    expect(checkPattern(".{1000}y")).toEqual({ steps: expect.any(Number) });
    const allOf = Array.from({ length: 50 }, (_, i) => ({ pattern: `.{${1000 - i}}y` }));
    expect(schemaHazards({ type: "string", allOf })).toEqual([
      expect.stringMatching(
        new RegExp(`^/ has patterns of about \\d+ steps in all; at most ${MAX_SCHEMA_PROGRAM} are run per call`),
      ),
    ]);
  });
});

describe("runWithLinearPatterns", () => {
  it("answers like JavaScript for the patterns schemas use", () => {
    const cases: [string, string[]][] = [
      ["^[a-z0-9_-]{3,16}$", ["user_1", "ab", "UPPER", "a".repeat(17)]],
      ["^\\d{4}-\\d{2}-\\d{2}$", ["2026-12-04", "2026-1-04", "x2026-12-04"]],
      ["^https?://", ["https://x", "ftp://x", "http://"]],
      ["^\\u00e9+$", ["ééé", "e"]],
      ["^\\u{1F600}$", ["😀", "x"]],
      ["^(?<year>\\d{4})$", ["2026", "26"]],
      ["^\\p{L}+$", ["Ωmega", "a1"]],
      ["colou?r", ["my color", "colr"]],
      ["^[^\\s@]+@[^\\s@]+$", ["a@b", "a b@c", "@b", "a\u00a0b@c"]],
      // JavaScript's `.` and `\s`, not RE2's: a CR, U+2028, NBSP and \v are what they are in JS.
      ["^.+$", ["one line", "a\r\nX-Injected: 1", "a\u2028b", "a\nb"]],
      ["^\\s+$", [" \t", "\u00a0", "\v", "\u3000", "x"]],
      ["^\\S+$", ["abc", "a\u00a0b", "a\rb"]],
      ["^[\\s,]+$", [" ,\u00a0", "\v,", "x"]],
      ["^a\\.b$", ["a.b", "axb"]],
    ];
    for (const [pattern, texts] of cases) {
      for (const text of texts)
        expect(linearTest(pattern, text), `${pattern} on ${text}`).toBe(new nativeRegExp(pattern, "u").test(text));
    }
  });

  it("stops a validation whose patterns would cost more than the budget, and restores RegExp", () => {
    const text = "x".repeat(10_000);
    expect(() =>
      runWithLinearPatterns(() => ["a", "b", "c"].map((c) => new RegExp(`.{1000}${c}`, "u").test(text))),
    ).toThrow(PatternBudgetExceeded);
    expect(RegExp).toBe(nativeRegExp);
    expect(/a/.test("a")).toBe(true);
  });

  it("charges each pattern its program size times the text, so short texts stay well within it", () => {
    // 100 tests of a 36-step pattern on 50 characters: about 180,000 of the budget.
    const meter = new PatternMeter();
    const ok = runWithLinearPatterns(
      () => Array.from({ length: 100 }, () => new RegExp("^[a-z]{3,16}@[a-z]+$", "u").test("x".repeat(49))),
      meter,
    );
    expect(ok.every((v) => v === false)).toBe(true);
    expect(meter.spent).toBeGreaterThan(100 * 36 * 50);
    expect(meter.spent).toBeLessThan(MATCH_BUDGET);
  });
});

describe("one meter for a request's checks", () => {
  afterEach(() => vi.restoreAllMocks());
  // The worst the checks accept: 1,472 steps, and an argument that stays within one check's budget.
  const worst = "(?:a?){490}a{490}";

  it("refuses the checks past one request's budget, however the work is spread over its calls", () => {
    expect(checkPattern(worst)).toEqual({ steps: expect.any(Number) });
    const meter = new PatternMeter();
    const outcomes = Array.from({ length: 32 }, () => {
      try {
        return runWithLinearPatterns(() => new RegExp(worst, "u").test("a".repeat(124)), meter);
      } catch (e) {
        if (e instanceof PatternBudgetExceeded) return "refused";
        throw e;
      }
    });
    // Each check alone stays within the budget: a meter per call let all 32 run (480 ms in workerd).
    expect(outcomes[0]).toBe(false);
    expect(outcomes.filter((o) => o !== "refused").length).toBeLessThanOrEqual(2);
    expect(meter.spent).toBeLessThanOrEqual(MATCH_BUDGET);
  });

  it("charges a compilation before it runs, so a refused check compiles nothing", () => {
    const meter = new PatternMeter(1_000);
    const compile = vi.spyOn(RE2JS, "compile");
    // A pattern never compiled before: only its estimated size is known, and it is over the budget.
    expect(() => runWithLinearPatterns(() => new RegExp(".{999}z", "u").test("x"), meter)).toThrow(
      PatternBudgetExceeded,
    );
    expect(compile).not.toHaveBeenCalled();
    // Once the meter is spent, every later check of the request is refused at once.
    expect(() => runWithLinearPatterns(() => new RegExp("^a$", "u").test("a"), meter)).toThrow(PatternBudgetExceeded);
    expect(compile).not.toHaveBeenCalled();
  });

  it("takes compilation at what it costs: a cold 1,000-step pattern costs 25 a step", () => {
    const meter = new PatternMeter();
    runWithLinearPatterns(() => new RegExp(".{998}q", "u").test(""), meter);
    expect(meter.spent).toBeGreaterThanOrEqual(1_000 * 25);
  });
});

describe("checkArguments", () => {
  it("answers budget exceeded for fifty fixed-count patterns against 10,000 characters", () => {
    const allOf = Array.from({ length: 50 }, (_, i) => ({ pattern: `.{${1000 - i}}y` }));
    const schema = { type: "object", properties: { q: { type: "string", allOf } } };
    const result = checkArguments(schema, { q: "x".repeat(10_000) });
    expect(result).toEqual({ valid: false, errors: [], budgetExceeded: true });
    const few = {
      type: "object",
      properties: { q: { type: "string", allOf: allOf.slice(0, 5).map((_, i) => ({ pattern: `.{${100 - i}}y` })) } },
    };
    expect(checkArguments(few, { q: `${"x".repeat(100)}y` })).toEqual({ valid: true, errors: [] });
  });

  it("runs patternProperties on RE2 too", () => {
    const schema = { type: "object", patternProperties: { "^(a+)+$": { type: "number" } } };
    expect(checkArguments(schema, { aaa: 1 }).valid).toBe(true);
    expect(checkArguments(schema, { aaa: "x" }).valid).toBe(false);
    expect(checkArguments(schema, { [`${"a".repeat(40)}!`]: "x" }).valid).toBe(true);
  });

  it("stops at the first failing property", () => {
    const schema = { type: "object", properties: { a: { type: "string" }, b: { type: "string" } } };
    expect(checkArguments(schema, { a: 1, b: 2 }).errors.filter((e) => e.keyword === "type")).toHaveLength(1);
  });
});
