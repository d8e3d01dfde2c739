import { describe, expect, it } from "vitest";
import { CallRoom, RUNNER_PICKUP_GRACE_MS } from "../../durable-objects/chat/jobs/call-room";

describe("what a chat knows of its calls on their way", () => {
  it("weighs what each runner object was handed until it reports, the chat takes it back, or the job ends", () => {
    const room = new CallRoom();
    room.handed("x", 0, 1);
    room.handed("y", 0, 2);
    room.handed("z", 2, 1);
    expect([...room.objectWeights()]).toEqual([
      ["x", 1],
      ["y", 2],
      ["z", 1],
    ]);
    room.left("y");
    room.stop("z");
    expect([...room.objectWeights()]).toEqual([["x", 1]]);
  });

  it("counts hand-overs that failed in a row until the job ends, so each next try waits longer", () => {
    const room = new CallRoom();
    expect(room.handOverFailed("a")).toBe(1);
    room.left("a"); // taken back from its runner: the count stays
    expect(room.handOverFailed("a")).toBe(2);
    room.stop("a");
    expect(room.handOverFailed("a")).toBe(1);
  });

  it("knows a call sent to the calls queue is on its way until a runner takes it or the grace ends", () => {
    const room = new CallRoom();
    room.sentToQueue(["a", "b"], 1_000);
    expect(room.onItsWayToQueue("a", 1_000 + RUNNER_PICKUP_GRACE_MS - 1)).toBe(true);
    room.takenFromQueue("a");
    expect(room.onItsWayToQueue("a", 1_001)).toBe(false); // the row says who holds it now
    expect(room.onItsWayToQueue("b", 1_000 + RUNNER_PICKUP_GRACE_MS)).toBe(false); // a later copy sends it again
    room.sentToQueue(["c"], 2_000);
    room.stop("c");
    expect(room.onItsWayToQueue("c", 2_001)).toBe(false);
  });

  it("lets one hand-over of a subordinate to its child be under way at a time", () => {
    const room = new CallRoom();
    expect(room.handingToChild("s")).toBe(true);
    expect(room.handingToChild("s")).toBe(false);
    expect(room.isHandingToChild("s")).toBe(true);
    room.handedToChild("s");
    expect(room.isHandingToChild("s")).toBe(false);
  });
});
