import { describe, expect, it } from "vitest";
import {
  keptProgress,
  LatestEvery,
  PROGRESS_INTERVAL_MS,
  PROGRESS_MESSAGE_MAX_CHARS,
  type Clock,
} from "../../src/core/jobs/progress";

/** A clock whose time moves only when told, running timers as it passes them. */
function manualClock() {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  const clock: Clock = {
    now: () => now,
    later: (fn, ms) => {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => (timers = timers.filter((t) => t !== timer));
    },
  };
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const next = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      timers = timers.filter((t) => t !== next);
      now = next.at;
      next.fn();
    }
    now = until;
  };
  return { clock, advance, pending: () => timers.length, now: () => now };
}

function throttled() {
  const { clock, advance, pending, now } = manualClock();
  const writes: [number, number][] = [];
  const latest = new LatestEvery<number>(PROGRESS_INTERVAL_MS, (v) => writes.push([now(), v]), clock);
  return { latest, advance, pending, writes };
}

describe("progress writes", () => {
  it("write the first report at once and at most one a second after it, the latest winning", () => {
    const { latest, advance, writes } = throttled();
    latest.offer(1);
    advance(200);
    latest.offer(2);
    advance(200);
    latest.offer(3);
    advance(600); // one second after the first write
    expect(writes).toEqual([
      [0, 1],
      [1000, 3],
    ]);
    advance(5000);
    latest.offer(4); // after a quiet spell: at once again
    expect(writes).toEqual([
      [0, 1],
      [1000, 3],
      [6000, 4],
    ]);
  });

  it("never write twice within a second, however fast reports come", () => {
    const { latest, advance, writes } = throttled();
    for (let i = 0; i < 100; i++) {
      latest.offer(i);
      advance(50);
    }
    advance(1000);
    expect(writes.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < writes.length; i++)
      expect(writes[i]![0] - writes[i - 1]![0]).toBeGreaterThanOrEqual(PROGRESS_INTERVAL_MS);
    expect(writes.at(-1)![1]).toBe(99);
  });

  it("drop a report still waiting once stopped, and take no more", () => {
    const { latest, advance, pending, writes } = throttled();
    latest.offer(1);
    latest.offer(2);
    latest.stop();
    expect(pending()).toBe(0);
    advance(2000);
    latest.offer(3);
    expect(writes).toEqual([[0, 1]]);
  });
});

describe("a progress notification as kept", () => {
  it("keeps progress, total and message in contract order", () => {
    expect(Object.keys(keptProgress({ message: "half", total: 10, progress: 5 })!)).toEqual([
      "progress",
      "total",
      "message",
    ]);
    expect(keptProgress({ progress: 0.5 })).toEqual({ progress: 0.5 });
  });

  it("cuts a long message, and drops a total or a report that is not a finite number", () => {
    expect(keptProgress({ progress: 1, message: "m".repeat(2000) })!.message).toHaveLength(PROGRESS_MESSAGE_MAX_CHARS);
    expect(keptProgress({ progress: 1, total: Number.POSITIVE_INFINITY })).toEqual({ progress: 1 });
    expect(keptProgress({ progress: Number.NaN })).toBeUndefined();
    expect(keptProgress({ progress: "3" })).toBeUndefined();
  });
});
