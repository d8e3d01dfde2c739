import { describe, expect, it } from "vitest";
import { LiteralSearch } from "../../src/core/util/literal-search";

const covered = (literals: string[], text: string) =>
  new LiteralSearch(literals).spans(text).map(([start, end]) => text.slice(start, end));

describe("LiteralSearch", () => {
  it("finds every occurrence of each literal, in order", () => {
    const search = new LiteralSearch(["secret-one", "secret-two"]);
    expect(search.spans("a secret-two, b secret-one.")).toEqual([
      [2, 12],
      [16, 26],
    ]);
    expect(covered(["needle"], "no match here")).toEqual([]);
    expect(covered(["needle"], "")).toEqual([]);
  });

  it("covers the longest literal where one holds another, and joins literals that overlap", () => {
    expect(covered(["abcdefgh", "cdef"], "xxabcdefghxx")).toEqual(["abcdefgh"]);
    expect(covered(["abcdefgh", "ghijklmn"], "..abcdefghijklmn..")).toEqual(["abcdefghijklmn"]);
    // The second literal starts before the stretch found so far: the stretch grows back.
    expect(covered(["cdefgh", "abcdefghij"], "abcdefghij")).toEqual(["abcdefghij"]);
  });

  it("keeps literals that only touch apart, as a search one after another would", () => {
    expect(covered(["secret12"], "secret12secret12")).toEqual(["secret12", "secret12"]);
  });

  it("finds a literal after a partial match of another, through the links back", () => {
    expect(covered(["aaaab", "aab"], "aaaaab")).toEqual(["aaaab"]);
    expect(covered(["abcabd", "cabx"], "abcabcabx")).toEqual(["cabx"]);
    expect(covered(["he", "she", "his", "hers"], "ushers")).toEqual(["shers"]);
  });

  it("finds characters past ASCII and at the first state as well as later", () => {
    expect(covered(["clé-secrète", "ключ-секрет"], "x clé-secrète y ключ-секрет z")).toEqual([
      "clé-secrète",
      "ключ-секрет",
    ]);
  });

  it("finds the one literal of 200 sharing a 1,000-character beginning at the end of 100,000 near misses", () => {
    // A RegExp alternation of these tries up to 200 × 1,000 characters at each position: 20 billion
    // here. The search reads each character once and follows links back at most as often.
    const literals = Array.from({ length: 200 }, (_, i) => "a".repeat(1000) + i.toString(36).padStart(2, "0"));
    const text = `${"a".repeat(100_000)}07`;
    expect(new LiteralSearch(literals).spans(text)).toEqual([[text.length - 1002, text.length]]);
  });
});
