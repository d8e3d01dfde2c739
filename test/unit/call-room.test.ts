import { describe, expect, it } from "vitest";
import { CallRoom } from "../../durable-objects/chat/jobs/call-room";

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
});
