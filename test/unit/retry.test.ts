import { describe, expect, it } from "vitest";
import { backoffMs, isRetryable, parseRetryAfter, type AttemptFailure } from "../../src/core/tools/retry";

const status = (s: number): AttemptFailure => ({ kind: "status", status: s });
const network: AttemptFailure = { kind: "network" };
const never = () => {
  throw new Error("random must not be used");
};

describe("isRetryable", () => {
  it.each([408, 429, 500, 502, 503, 504, 599])("retries a read-only tool after HTTP %i", (s) => {
    expect(isRetryable(status(s), true)).toBe(true);
  });

  it.each([408, 429, 500, 502, 503, 504, 599])("retries a side-effecting tool after HTTP %i", (s) => {
    expect(isRetryable(status(s), false)).toBe(true);
  });

  it.each([400, 401, 403, 404, 409, 410, 413, 422])("never retries after HTTP %i", (s) => {
    expect(isRetryable(status(s), true)).toBe(false);
    expect(isRetryable(status(s), false)).toBe(false);
  });

  it("retries a read-only tool after a network error", () => {
    expect(isRetryable(network, true)).toBe(true);
  });

  it("never retries a side-effecting tool after a network error (outcome unknown)", () => {
    expect(isRetryable(network, false)).toBe(false);
  });

  it("retries any tool when nothing reached it (an MCP server that could not be connected to)", () => {
    expect(isRetryable({ kind: "unsent" }, false)).toBe(true);
    expect(isRetryable({ kind: "unsent" }, true)).toBe(true);
  });
});

describe("backoffMs", () => {
  it("draws from 0 up to 1 s before the second attempt", () => {
    expect(backoffMs(1, undefined, () => 0)).toBe(0);
    expect(backoffMs(1, undefined, () => 0.5)).toBe(500);
    expect(backoffMs(1, undefined, () => 0.999999)).toBeLessThan(1000);
    expect(backoffMs(1, undefined, () => 0.999999)).toBeGreaterThanOrEqual(999);
  });

  it("doubles the window with each attempt (1 s · 2^n)", () => {
    expect(backoffMs(2, undefined, () => 0.5)).toBe(1000);
    expect(backoffMs(3, undefined, () => 0.5)).toBe(2000);
    expect(backoffMs(4, undefined, () => 0.5)).toBe(4000);
    expect(backoffMs(5, undefined, () => 0.999999)).toBeLessThan(16_000);
    expect(backoffMs(5, undefined, () => 0.999999)).toBeGreaterThan(15_000);
  });

  it("caps the window at 30 s however many attempts were made", () => {
    for (const attempt of [6, 7, 10, 50, 2000]) {
      const high = backoffMs(attempt, undefined, () => 0.999999);
      expect(high).toBeLessThan(30_000);
      expect(high).toBeGreaterThan(29_000);
      expect(backoffMs(attempt, undefined, () => 0.5)).toBe(15_000);
    }
  });

  it("uses full jitter: every draw stays within [0, window)", () => {
    for (let i = 0; i <= 100; i++) {
      const r = i / 101;
      const d = backoffMs(3, undefined, () => r);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(4000);
      expect(Number.isInteger(d)).toBe(true);
    }
  });

  it("honours Retry-After instead of drawing a delay", () => {
    expect(backoffMs(1, 5_000, never)).toBe(5_000);
    expect(backoffMs(4, 0, never)).toBe(0);
    expect(backoffMs(9, 12_345, never)).toBe(12_345);
  });

  it("never waits a negative time for a Retry-After in the past", () => {
    expect(backoffMs(1, -3_000, never)).toBe(0);
  });

  it("honours a Retry-After of exactly the 30 s cap", () => {
    expect(backoffMs(1, 30_000, never)).toBe(30_000);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-01T10:00:00.000Z");

  it("reads delta-seconds as milliseconds", () => {
    expect(parseRetryAfter("5", now)).toBe(5_000);
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter(" 12 ", now)).toBe(12_000);
  });

  it("reads an HTTP date as the time until it", () => {
    expect(parseRetryAfter("Sun, 01 Nov 2026 10:00:10 GMT", now)).toBe(10_000);
  });

  it("reads an HTTP date in the past as no wait", () => {
    expect(parseRetryAfter("Sun, 01 Nov 2026 09:59:00 GMT", now)).toBe(0);
  });

  it("ignores a missing or unreadable header", () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});
