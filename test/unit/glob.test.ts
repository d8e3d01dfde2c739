import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { globMatch, matchGlob, matchGlobPrefix } from "../../src/core/tools/glob";

describe("globMatch", () => {
  it("matches a plain name exactly", () => {
    expect(globMatch("search", "search")).toBe(true);
    expect(globMatch("search", "searches")).toBe(false);
    expect(globMatch("search", "websearch")).toBe(false);
  });

  it("ignores case", () => {
    expect(globMatch("Search", "sEARCH")).toBe(true);
    expect(globMatch("DOCS__*", "docs__find")).toBe(true);
  });

  it("lets * match any run, including an empty one", () => {
    expect(globMatch("*", "anything")).toBe(true);
    expect(globMatch("*", "")).toBe(true);
    expect(globMatch("docs__*", "docs__")).toBe(true);
    expect(globMatch("docs__*", "docs__find_page")).toBe(true);
    expect(globMatch("*_read", "db_read")).toBe(true);
    expect(globMatch("a*b*c", "aXXbYYc")).toBe(true);
    expect(globMatch("a*b*c", "aXXcYYb")).toBe(false);
  });

  it("matches the whole name, never a part of it", () => {
    expect(globMatch("docs__*", "xdocs__find")).toBe(false);
    expect(globMatch("*find", "docs__finder")).toBe(false);
  });

  it("lets ? match exactly one character", () => {
    expect(globMatch("a?c", "abc")).toBe(true);
    expect(globMatch("a?c", "ac")).toBe(false);
    expect(globMatch("a?c", "abbc")).toBe(false);
    expect(globMatch("???", "xyz")).toBe(true);
  });

  it("treats regular-expression characters literally", () => {
    expect(globMatch("a.c", "abc")).toBe(false);
    expect(globMatch("a.c", "a.c")).toBe(true);
    expect(globMatch("a+", "aaa")).toBe(false);
    expect(globMatch("a+", "a+")).toBe(true);
    expect(globMatch("[ab]", "a")).toBe(false);
    expect(globMatch("[ab]", "[ab]")).toBe(true);
    expect(globMatch("(x|y)", "x")).toBe(false);
    expect(globMatch("^x$", "^x$")).toBe(true);
    expect(globMatch("a\\d", "a1")).toBe(false);
  });

  it("matches names with a newline in them as a whole", () => {
    expect(globMatch("a*", "a\nb")).toBe(true);
    expect(globMatch("a", "a\nb")).toBe(false);
  });
});

/** The matcher this one replaced, kept as the reference: a regular expression, correct but able to backtrack. */
function regexGlob(glob: string, name: string): boolean {
  const pattern = [...glob]
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${pattern}$`, "is").test(name);
}

describe("globMatch against the regular-expression reference", () => {
  // Few distinct characters make matches (and near-misses) common; `K` and `\u212a` (Kelvin) and
  // `ß` probe case folding; `\n` probes that `?` and `*` span any character.
  const globChar = fc.constantFrom("a", "A", "b", "*", "?", ".", "K", "\u212a", "ß", "\n");
  const nameChar = fc.constantFrom("a", "A", "b", "B", ".", "k", "\u212a", "ß", "\n");
  const glob = fc.array(globChar, { maxLength: 12 }).map((cs) => cs.join(""));
  const name = fc.array(nameChar, { maxLength: 20 }).map((cs) => cs.join(""));

  it("agrees with the reference on random globs and names", () => {
    fc.assert(
      fc.property(glob, name, (g, n) => globMatch(g, n) === regexGlob(g, n)),
      { numRuns: 20_000 },
    );
  });

  it("never makes more than (|name| + 1) × (|glob| + 1) comparisons", () => {
    const longName = fc.array(nameChar, { maxLength: 300 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(glob, longName, (g, n) => matchGlob(g, n).comparisons <= (n.length + 1) * (g.length + 1)),
      { numRuns: 5_000 },
    );
  });

  it("answers the glob that stalled the regex matcher at once, within the bound", () => {
    const stall = "*a*a*a*a*a*a*a*b";
    const names = ["a".repeat(48), `${"a".repeat(47)}c`, "ab".repeat(24)];
    for (const n of names) {
      const { matched, comparisons } = matchGlob(stall, n);
      expect(matched).toBe(n.endsWith("b"));
      expect(comparisons).toBeLessThanOrEqual((n.length + 1) * (stall.length + 1));
    }
    // The worst a 128-character glob can do against a 10,000-character name stays in the bound too.
    const worst = matchGlob(`*${"a".repeat(63)}*${"a".repeat(62)}b`, "a".repeat(10_000));
    expect(worst.matched).toBe(false);
    expect(worst.comparisons).toBeLessThanOrEqual(10_001 * 129);
  });
});

describe("matchGlobPrefix against the names it claims", () => {
  const globChar = fc.constantFrom("a", "B", "*", "?");
  const glob = fc.array(globChar, { maxLength: 7 }).map((cs) => cs.join(""));
  const prefix = fc.array(fc.constantFrom("a", "b", "A"), { maxLength: 6 }).map((cs) => cs.join(""));
  /** Every continuation of one to |glob| + 1 characters over the glob's own letters. */
  const continuations = (length: number): string[] =>
    length === 0 ? [""] : continuations(length - 1).flatMap((c) => [`${c}a`, `${c}b`]);
  const someLongerName = (g: string, p: string) =>
    Array.from({ length: g.length + 1 }, (_, i) => continuations(i + 1)).some((cs) =>
      cs.some((c) => globMatch(g, p + c)),
    );

  it("answers true exactly when some longer name with the prefix matches", () => {
    fc.assert(
      fc.property(glob, prefix, (g, p) => matchGlobPrefix(g, p).matched === someLongerName(g, p)),
      { numRuns: 3_000 },
    );
  });
});
