/**
 * A lane's outcomes on their way to its chat (`src/core/jobs/report-queue`): at once when nothing is on its
 * way, together otherwise.
 */
import { describe, expect, it } from "vitest";
import { ReportQueue } from "../../src/core/jobs/report-queue";

/** A deliver function whose calls the test finishes by hand. */
function heldDeliveries() {
  const calls: { items: string[]; finish: (error?: Error) => void }[] = [];
  const deliver = (items: string[]) =>
    new Promise<void>((resolve, reject) =>
      calls.push({ items, finish: (error) => (error ? reject(error) : resolve()) }),
    );
  return { calls, deliver };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("ReportQueue", () => {
  it("sends the first report at once, and what ends meanwhile together in the next", async () => {
    const { calls, deliver } = heldDeliveries();
    const queue = new ReportQueue(deliver);
    const first = queue.send("a");
    const later = [queue.send("b"), queue.send("c")];
    await tick();
    expect(calls.map((c) => c.items)).toEqual([["a"]]);
    calls[0]!.finish();
    await first;
    await tick();
    expect(calls.map((c) => c.items)).toEqual([["a"], ["b", "c"]]);
    calls[1]!.finish();
    await Promise.all(later);
    // Nothing on its way: the next report goes at once, alone.
    const next = queue.send("d");
    await tick();
    expect(calls.map((c) => c.items)).toEqual([["a"], ["b", "c"], ["d"]]);
    calls[2]!.finish();
    await next;
  });

  it("fails every report of a group whose delivery failed, and goes on with the next group", async () => {
    const { calls, deliver } = heldDeliveries();
    const queue = new ReportQueue(deliver);
    const first = queue.send("a");
    const second = queue.send("b");
    await tick();
    calls[0]!.finish(new Error("chat unreachable"));
    await expect(first).rejects.toThrow("chat unreachable");
    await tick();
    expect(calls[1]!.items).toEqual(["b"]);
    calls[1]!.finish();
    await expect(second).resolves.toBeUndefined();
  });
});
