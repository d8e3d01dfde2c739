import { describe, expect, it } from "vitest";
import { CallRoom, RUNNER_PICKUP_GRACE_MS } from "../../durable-objects/chat/jobs/call-room";

describe("a chat's call room", () => {
  it("counts calls on their way and running here, each once", () => {
    const room = new CallRoom();
    room.reserve("a", 1);
    room.reserve("b", 2);
    expect(room.hereLoad()).toBe(3);
    expect(room.holdsAny()).toBe(false); // nothing has left yet
    const stop = room.begin("a", 1);
    expect(room.hereLoad()).toBe(3);
    room.unreserve("a"); // a call that began keeps its room
    room.unreserve("b"); // one that never began frees it
    expect(room.hereLoad()).toBe(1);
    expect(room.isRunningHere("a")).toBe(true);
    room.ended("a", stop);
    expect(room.hereLoad()).toBe(0);
  });

  it("lets only the call that began end its entry, and stops a call it is told to", () => {
    const room = new CallRoom();
    const first = room.begin("a", 1);
    const second = room.begin("a", 1); // a recovered call of the same job
    room.ended("a", first);
    expect(room.isRunningHere("a")).toBe(true);
    room.stop("a");
    expect(second.signal.aborted).toBe(true);
    expect(room.isRunningHere("a")).toBe(false);
  });

  it("sums what each lane was handed until it reports or the job is stopped", () => {
    const room = new CallRoom();
    room.handed("x", 0, 1, 100);
    room.handed("y", 0, 2, 100);
    room.handed("z", 2, 1, 150);
    expect(room.laneLoads()).toEqual([3, undefined, 1]);
    expect(room.handedAt("z")).toBe(150);
    expect(room.holdsAny()).toBe(true);
    room.laneEnded("y");
    room.stop("z");
    expect(room.laneLoads()).toEqual([1]);
    expect(room.handedAt("z")).toBeUndefined();
  });

  it("knows a call sent to a Worker runner is on its way until a runner takes it or the grace ends", () => {
    const room = new CallRoom();
    room.sentToRunner(["a", "b"], 1_000);
    expect(room.onItsWayToRunner("a", 1_000 + RUNNER_PICKUP_GRACE_MS - 1)).toBe(true);
    room.takenByRunner("a");
    expect(room.onItsWayToRunner("a", 1_001)).toBe(false); // the row says who holds it now
    expect(room.onItsWayToRunner("b", 1_000 + RUNNER_PICKUP_GRACE_MS)).toBe(false); // a later copy sends it again
    room.sentToRunner(["c"], 2_000);
    room.stop("c");
    expect(room.onItsWayToRunner("c", 2_001)).toBe(false);
  });
});
