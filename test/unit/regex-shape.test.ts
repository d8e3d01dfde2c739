import { describe, expect, it } from "vitest";
import { backtrackingReason, MAX_PATTERN_CHARS } from "../../src/json-schema/regex-shape";

describe("backtrackingReason", () => {
  it.each([
    ["^(a+)+$", "repeats a part that itself repeats"],
    ["^(a*)*$", "repeats a part that itself repeats"],
    ["^(\\w+\\s?)*$", "repeats a part that itself repeats"],
    ["(x+x+)+y", "repeats a part that itself repeats"],
    ["^(?:a{1,3}){2,}$", "repeats a part that itself repeats"],
    ["^(a|ab)*c$", "alternatives that can start with the same character"],
    ["^(a|a)+$", "alternatives that can start with the same character"],
    ["^(a|)+$", "repeats a part that itself repeats"],
    ["^(?:a|[ab])(?:a|[ab])x$", "alternatives that can start with the same character"],
    ["^(foo|foobar)$", "alternatives that can start with the same character"],
    ["^[^\\p{L}]*[^\\p{L}]*x$", "two unbounded repetitions"],
    ["^a{0,16}a{0,16}x$", "two unbounded repetitions"],
    ["^(?:a|)(?:a|)x$", "two unbounded repetitions"],
    ["(?<=a*)b", "lookbehind of variable length"],
    ["(?=\\s*\\w{0,16})a{2,}", "two unbounded repetitions"],
    ["(?<!a+)b", "lookbehind of variable length"],
    ["^(?:x|[a-z])+$", "alternatives that can start with the same character"],
    ["^(a)\\1$", "backreference"],
    ["^(?<x>a)\\k<x>$", "backreference"],
    ["^a*a*a*b$", "two unbounded repetitions"],
    ["^\\d+\\d+x$", "two unbounded repetitions"],
    ["^\\S+@\\S+$", "two unbounded repetitions"],
    ["^.*@.*x$", "two unbounded repetitions"],
    ["^a+b?a+$", "two unbounded repetitions"],
    ["^\\d{1,5000}\\d{1,5000}x$", "two unbounded repetitions"],
    ["\\d+x", "two unbounded repetitions"],
    ["\\d+$", "two unbounded repetitions"],
    ["\\S?(?:.{2,}x{1,3}b)", "two unbounded repetitions"],
    ["(?=.*\\d)", "two unbounded repetitions"],
    ["^(a+)[ab](a+)$", "two unbounded repetitions"],
    ["^[ab]+ab[ab]+$", "two unbounded repetitions"],
    // Safe in fact (the dash separates), but a repeated part holding a repetition is a refused shape (docs/api.md#tool-schema-safety).
    ["^(?:[a-z]+-)*[a-z]+$", "repeats a part that itself repeats"],
    ["(", "is not a valid regular expression"],
    ["a".repeat(MAX_PATTERN_CHARS + 1), `longer than ${MAX_PATTERN_CHARS}`],
  ])("refuses %j: %s", (pattern, reason) => {
    expect(backtrackingReason(pattern)).toContain(reason);
  });

  it.each([
    "^[a-z]+$",
    "^\\d+x$",
    "^[a-z]+@[a-z]+\\.[a-z]{2,}$",
    "^[A-Za-z0-9_-]{1,64}$",
    "^\\d{4}-\\d{2}-\\d{2}$",
    "^https?://",
    "^(foo|bar)+$",
    "^(?:ab|cd)*$",
    "^(?=.*\\d)[a-z\\d]{8,}$",
    "x\\d+y",
    "[a-z]\\d+",
    "\\S+",
    "^\\p{L}+$",
    "^[^\\s@]+@[^\\s@]+$",
    "^(\\d{3})+$",
    "^a+ba+$",
    "^(\\d+)-(\\d+)$",
    "(?<=ab)c",
    "^\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}$",
    "^(?:Mr|Dr|Prof)\\.? [A-Z][a-z]+$",
  ])("accepts %j", (pattern) => {
    expect(backtrackingReason(pattern)).toBeUndefined();
  });

  it("names the part to rewrite and how", () => {
    expect(backtrackingReason("^(a+)+$")).toBe(
      "repeats a part that itself repeats a variable number of times ((a+)+); repeat one of them only",
    );
  });
});
