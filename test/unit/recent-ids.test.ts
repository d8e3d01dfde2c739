import { describe, expect, it } from "vitest";
import { RecentIds } from "../../durable-objects/runner/recent-ids";

describe("RecentIds", () => {
  it("remembers ids up to its limit and forgets the oldest first", () => {
    const recent = new RecentIds(2);
    recent.add("a");
    recent.add("b");
    recent.add("c");
    expect([recent.has("a"), recent.has("b"), recent.has("c")]).toEqual([false, true, true]);
  });

  it("counts an id added again as new", () => {
    const recent = new RecentIds(2);
    recent.add("a");
    recent.add("b");
    recent.add("a");
    recent.add("c");
    expect([recent.has("a"), recent.has("b"), recent.has("c")]).toEqual([true, false, true]);
  });
});
