import { describe, expect, it } from "vitest";
import { Waiters, type WaitingSocket } from "../../durable-objects/chat/jobs/waiters";
import { JOB_PROGRESSED, JOBS_ENDED } from "../../src/core/jobs/messages";

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

function rig(active: string[], answerOf?: (ids: string[], maxResultChars: number) => string | undefined) {
  const s = storage(active);
  const sockets: ReturnType<typeof socket>[] = [];
  const waiters = new Waiters(
    () => sockets,
    (ids) => s.stillActive(ids),
    answerOf,
  );
  const wait = (ids: string[], answer?: number, progress?: boolean) => {
    const ws = socket();
    sockets.push(ws);
    waiters.wait(ws, ids, answer, progress);
    return ws;
  };
  return { s, waiters, wait };
}

/** The wake's answer is read after the work that ended the last job: a microtask later. */
const afterThisWork = () => new Promise<void>((r) => queueMicrotask(r));

describe("Waiters", () => {
  it("passes a job's MCP progress to the requests that asked for it, while they wait for that job", () => {
    const { s, waiters, wait } = rig(["a", "b"]);
    const asked = wait(["a"], undefined, true);
    const silent = wait(["a"]);
    const other = wait(["b"], undefined, true);
    waiters.progressed("a", { progress: 2, total: 6, message: "page 2" });
    expect(asked.sent).toEqual([`${JOB_PROGRESSED}{"job_id":"a","progress":2,"total":6,"message":"page 2"}`]);
    expect(silent.sent).toEqual([]);
    expect(other.sent).toEqual([]);
    s.active.delete("a");
    waiters.ended("a");
    waiters.progressed("a", { progress: 3 }); // late: the request was woken already
    expect(asked.sent).toEqual([expect.stringMatching(/^progress:/), JOBS_ENDED]);
  });

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

  it("sends a request that asked for it its answer with the wake, read for its ids and max_result_chars", async () => {
    const asked: unknown[] = [];
    const { s, waiters, wait } = rig(["a", "b"], (ids, max) => (asked.push([ids, max]), `{"ok":true,"n":${max}}`));
    const ws = wait(["a", "b"], 500);
    s.active.delete("a");
    waiters.ended("a");
    s.active.delete("b");
    waiters.ended("b");
    expect(ws.sent).toEqual([]); // not inside the work that ended "b"
    await afterThisWork();
    expect(ws.sent).toEqual(['{"ok":true,"n":500}']);
    expect(asked).toEqual([[["a", "b"], 500]]);
  });

  it("keeps a request waiting when the end that would wake it was rolled back before its answer was read", async () => {
    const { s, waiters, wait } = rig(["a"], () => '{"ok":true}');
    const ws = wait(["a"], 100);
    s.active.delete("a");
    waiters.ended("a"); // the last job ended inside a transaction...
    s.active.add("a"); // ...that rolled back before the answer was read
    await afterThisWork();
    expect(ws.sent).toEqual([]);
    s.active.delete("a");
    waiters.ended("a");
    await afterThisWork();
    expect(ws.sent).toEqual(['{"ok":true}']);
  });

  it("says only that the jobs ended when the answer is not to be had, so the worker asks for it", async () => {
    const none = rig([], () => undefined).wait(["a"], 100);
    const failing = rig([], () => {
      throw new Error("storage gone");
    }).wait(["a"], 100);
    const notAsked = rig([], () => '{"ok":true}').wait(["a"]);
    expect(notAsked.sent).toEqual([JOBS_ENDED]);
    await afterThisWork();
    expect(none.sent).toEqual([JOBS_ENDED]);
    expect(failing.sent).toEqual([JOBS_ENDED]);
  });
});
