/** A keyed flow rule's index (durable-objects/flow/FlowIndexDO.ts): busy keys kept, keys at rest forgotten, headroom brought up to now. */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FlowIndexDO } from "../../durable-objects/flow/FlowIndexDO";

afterEach(() => vi.useRealTimers());

const T0 = Date.parse("2026-12-04T10:00:00.000Z");
const rate = { limit: 60, period_seconds: 60, burst: 5 };

describe("a flow rule's index", () => {
  it("sums its busy keys, lists the busiest first, forgets a key at rest, and lets a key's headroom grow back at the rule's pace", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    const stub = env.FLOW_INDEX.getByName("flowkeys/acme/per-user");
    await runInDurableObject(stub, (index: FlowIndexDO) => {
      index.report("u1", { running: 1, queued: 3, available: 0 }, false);
      index.report("u2", { running: 1, queued: 0, available: 2 }, false);
      index.report("u3", { running: 0, queued: 0, available: 1 }, false); // nothing runs, but its rate is still spent
      index.report("u4", { running: 1, queued: 0, available: 5 }, false);
      index.report("u4", { running: 0, queued: 0, available: 5 }, true);
      expect(index.summary(rate)).toEqual({
        running: 2,
        queued: 3,
        available: 0,
        keys: [
          { key: "u1", running: 1, queued: 3 },
          { key: "u2", running: 1, queued: 0 },
        ],
      });
      vi.setSystemTime(T0 + 4_000); // one start a second comes back
      expect(index.summary(rate).available).toBe(4);
      vi.setSystemTime(T0 + 10_000); // u3 is at rest by now: out of the sums
      expect(index.summary(rate)).toMatchObject({ running: 2, queued: 3, available: 5 });
    });
  });
});
