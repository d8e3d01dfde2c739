import { describe, expect, it } from "vitest";
import { Waiters } from "../../durable-objects/chat/jobs/waiters";

/** Which jobs storage says are active, and how often it was asked. */
function storage(active: string[]) {
  const s = { active: new Set(active), reads: 0, stillActive: (ids: string[]) => (s.reads++, ids.filter((id) => s.active.has(id))) };
  return s;
}

describe("Waiters", () => {
  it("wakes a request at its last job's end, reading storage when it starts and at that end only", async () => {
    const waiters = new Waiters();
    const s = storage(["a", "b", "c"]);
    const woken = waiters.until(() => s.stillActive(["a", "b", "c"]), 1000);
    for (const id of ["b", "x", "a"]) {
      s.active.delete(id);
      waiters.ended(id); // "x" is another request's job
    }
    expect(waiters.size).toBe(1);
    s.active.delete("c");
    waiters.ended("c");
    expect(await woken).toBe(true);
    expect(waiters.size).toBe(0);
    expect(s.reads).toBe(2);
  });

  it("answers at once when nothing it waits for is active", async () => {
    const waiters = new Waiters();
    const s = storage([]);
    expect(await waiters.until(() => s.stillActive(["a"]), 1000)).toBe(true);
    expect(waiters.size).toBe(0);
  });

  it("keeps waiting when storage still holds a job reported ended (its transaction rolled back)", async () => {
    const waiters = new Waiters();
    const s = storage(["a", "b"]);
    const woken = waiters.until(() => s.stillActive(["a", "b"]), 1000);
    s.active.delete("a");
    waiters.ended("a");
    waiters.ended("b"); // reported, but "b" is still active in storage
    expect(waiters.size).toBe(1);
    s.active.delete("b");
    waiters.ended("b");
    expect(await woken).toBe(true);
  });

  it("answers false once its time is up, and forgets the request", async () => {
    const waiters = new Waiters();
    const s = storage(["a"]);
    expect(await waiters.until(() => s.stillActive(["a"]), 10)).toBe(false);
    expect(waiters.size).toBe(0);
    waiters.ended("a"); // a late end wakes nothing
    expect(s.reads).toBe(1);
  });
});
