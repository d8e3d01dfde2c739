import { describe, expect, it } from "vitest";
import { apiError } from "./fixtures";
import { pageLimit } from "../../src/edge/requests/page-limit";

const size = { fallback: 24, max: 100 };

describe("pageLimit", () => {
  it("gives the listing's default when `limit` is absent", () => {
    expect(pageLimit(undefined, size)).toBe(24);
  });

  it("takes an integer from 1 to the most", () => {
    expect(pageLimit("1", size)).toBe(1);
    expect(pageLimit("100", size)).toBe(100);
    expect(pageLimit("37", { fallback: 50, max: 200 })).toBe(37);
  });

  it("refuses what is not an integer in range, naming the range", () => {
    for (const raw of ["", "0", "-3", "101", "2.5", "ten", "Infinity"]) {
      const e = apiError(() => pageLimit(raw, size));
      expect(e.status, raw).toBe(400);
      expect(e.code, raw).toBe("invalid_limit");
      expect(e.message, raw).toBe("`limit` must be an integer from 1 to 100.");
    }
  });
});
