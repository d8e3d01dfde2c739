import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cutForJson, cutStoredResult } from "../../src/core/storage/row-bounds";

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe("cutStoredResult", () => {
  it("keeps a result that fits whole and unflagged", () => {
    expect(cutStoredResult("hello", 10)).toEqual({ result: "hello", result_truncated: false });
    expect(cutStoredResult("", 1)).toEqual({ result: "", result_truncated: false });
  });

  it("keeps a result of exactly the byte limit", () => {
    expect(cutStoredResult("héllo", 6)).toEqual({ result: "héllo", result_truncated: false });
  });

  it("counts bytes, not characters", () => {
    const r = cutStoredResult("ééé", 4);
    expect(r).toEqual({ result: "éé", result_truncated: true });
  });

  it("cuts at the byte limit and flags the result", () => {
    expect(cutStoredResult("abcdef", 3)).toEqual({ result: "abc", result_truncated: true });
  });

  it("never keeps a broken UTF-8 character at the cut", () => {
    expect(cutStoredResult("hé", 2)).toEqual({ result: "h", result_truncated: true });
    expect(cutStoredResult("a😀", 4)).toEqual({ result: "a", result_truncated: true });
    expect(cutStoredResult("😀", 3)).toEqual({ result: "", result_truncated: true });
    expect(cutStoredResult("a€b", 3)).toEqual({ result: "a", result_truncated: true });
  });

  it("always returns a well-formed prefix within the limit", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), fc.integer({ min: 1, max: 120 }), (text, max) => {
        fc.pre(text.isWellFormed());
        const r = cutStoredResult(text, max);
        expect(text.startsWith(r.result)).toBe(true);
        expect(bytes(r.result)).toBeLessThanOrEqual(max);
        expect(r.result.isWellFormed()).toBe(true);
        expect(r.result_truncated).toBe(bytes(text) > max);
      }),
    );
  });

  it("keeps a leading U+FEFF: it is the result's text, not a byte-order mark", () => {
    // Found by the property below (seed 1066489726): the decoder dropped it, and the cut came back empty.
    expect(cutStoredResult("\uFEFF\u0000", 3)).toEqual({ result: "\uFEFF", result_truncated: true });
  });

  it("keeps every whole character that fits", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 120 }),
        (text, max) => {
          fc.pre(text.isWellFormed() && !text.includes("\uFFFD") && bytes(text) > max);
          const r = cutStoredResult(text, max);
          const next = String.fromCodePoint(text.slice(r.result.length).codePointAt(0)!);
          expect(bytes(r.result + next)).toBeGreaterThan(max);
        },
      ),
    );
  });
});

describe("cutForJson", () => {
  it("leaves text that fits as it is", () => {
    expect(cutForJson("hello", 10, 100)).toEqual({ text: "hello", cut: false });
  });

  it("cuts text whose JSON escaping makes it too long, so the escaped form fits", () => {
    const quotes = '"'.repeat(1000); // 2 bytes each once escaped
    const { text, cut } = cutForJson(quotes, 100, 1100);
    expect(cut).toBe(true);
    expect(new TextEncoder().encode(JSON.stringify(text)).length).toBeLessThanOrEqual(1000);
    const control = "\u0001".repeat(1000); // 6 bytes each once escaped
    const fitted = cutForJson(control, 0, 2000).text;
    expect(new TextEncoder().encode(JSON.stringify(fitted)).length).toBeLessThanOrEqual(2000);
    expect(fitted.length).toBeGreaterThan(100);
  });
});
