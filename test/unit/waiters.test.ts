import { describe, expect, it } from "vitest";
import { Waiters, type WaitingSocket } from "../../durable-objects/chat/jobs/waiters";
import { JOBS_ENDED } from "../../src/core/jobs/messages";

/** Which jobs storage says are active, and how often it was asked. */
function storage(active: string[]) {
  const s = {
    active: new Set(active),
    reads: 0,
    stillActive: (ids: string[]) => (s.reads++, ids.filter((id) => s.active.has(id))),
  };
  return s;
}

/** A waiting request's socket as the hibernation API gives it: an attachment, and what it was sent. */
function socket(): WaitingSocket & { sent: string[] } {
  let attachment: unknown = null;
  const sent: string[] = [];
  return {
    sent,
    send: (m) => void sent.push(m),
    serializeAttachment: (v) => void (attachment = structuredClone(v)),
    deserializeAttachment: () => attachment,
  };
}

function rig(active: string[]) {
  const s = storage(active);
  const sockets: ReturnType<typeof socket>[] = [];
  const waiters = new Waiters(
    () => sockets,
    (ids) => s.stillActive(ids),
  );
  const wait = (ids: string[]) => {
    const ws = socket();
    sockets.push(ws);
    waiters.wait(ws, ids);
    return ws;
  };
  return { s, waiters, wait };
}

describe("Waiters", () => {
  it("wakes a request at its last job's end, reading storage when it starts and at that end only", () => {
    const { s, waiters, wait } = rig(["a", "b", "c"]);
    const ws = wait(["a", "b", "c"]);
    for (const id of ["b", "x", "a"]) {
      s.active.delete(id);
      waiters.ended(id); // "x" is another request's job
    }
    expect(ws.sent).toEqual([]);
    s.active.delete("c");
    waiters.ended("c");
    expect(ws.sent).toEqual([JOBS_ENDED]);
    expect(s.reads).toBe(2);
  });

  it("answers at once when nothing it waits for is active", () => {
    const { wait } = rig([]);
    expect(wait(["a"]).sent).toEqual([JOBS_ENDED]);
  });

  it("keeps waiting when storage still holds a job reported ended (its transaction rolled back)", () => {
    const { s, waiters, wait } = rig(["a", "b"]);
    const ws = wait(["a", "b"]);
    s.active.delete("a");
    waiters.ended("a");
    waiters.ended("b"); // reported, but "b" is still active in storage
    expect(ws.sent).toEqual([]);
    s.active.delete("b");
    waiters.ended("b");
    expect(ws.sent).toEqual([JOBS_ENDED]);
  });

  it("wakes each request once, however often its jobs are reported, and others on their own jobs", () => {
    const { s, waiters, wait } = rig(["a", "b"]);
    const first = wait(["a"]);
    const second = wait(["a", "b"]);
    s.active.delete("a");
    waiters.ended("a");
    waiters.ended("a");
    expect(first.sent).toEqual([JOBS_ENDED]);
    expect(second.sent).toEqual([]);
    s.active.delete("b");
    waiters.ended("b");
    expect(second.sent).toEqual([JOBS_ENDED]);
  });

  it("lets a request that left go quietly", () => {
    const { s, waiters, wait } = rig(["a"]);
    const ws = wait(["a"]);
    ws.send = () => {
      throw new Error("socket closed");
    };
    s.active.delete("a");
    expect(() => waiters.ended("a")).not.toThrow();
  });
});
