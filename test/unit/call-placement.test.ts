import { describe, expect, it } from "vitest";
import {
  callWeight,
  groupForRunners,
  placeInObjects,
  RUNNER_OBJECTS,
} from "../../durable-objects/chat/jobs/call-placement";

const calls = (n: number, weight = 1, prefix = "j") =>
  Array.from({ length: n }, (_, i) => ({ job_id: `${prefix}${i}`, weight }));
const sizes = (p: ReturnType<typeof placeInObjects>) => Object.fromEntries([...p].map(([k, ids]) => [k, ids.length]));

describe("placing calls in a chat's runner objects", () => {
  it("fills one object with 4 before starting the next", () => {
    expect(sizes(placeInObjects(calls(8), []))).toEqual({ 0: 4, 1: 4 });
  });

  it("spreads 32 calls over 8 objects of 4", () => {
    expect(sizes(placeInObjects(calls(32), []))).toEqual({ 0: 4, 1: 4, 2: 4, 3: 4, 4: 4, 5: 4, 6: 4, 7: 4 });
  });

  it("counts an MCP call (or one whose target is unknown) as 2", () => {
    expect(
      callWeight({
        kind: "mcp",
        endpoint: { name: "d", url: "https://x", headers: {} },
        tool: "t",
        max_response_bytes: 1,
        secrets: [],
      }),
    ).toBe(2);
    expect(callWeight(undefined)).toBe(2);
    expect(callWeight({ kind: "http_tool", url: "https://x", secret: "s", max_response_bytes: 1, secrets: [] })).toBe(
      1,
    );
    expect(sizes(placeInObjects(calls(6, 2), []))).toEqual({ 0: 2, 1: 2, 2: 2 });
  });

  it("fills what the objects already hold before starting another", () => {
    expect(sizes(placeInObjects(calls(5), [4, 1]))).toEqual({ 1: 3, 2: 2 });
  });

  it("a heavy call skips an object without room for it", () => {
    const p = placeInObjects(
      [
        { job_id: "mcp", weight: 2 },
        { job_id: "http", weight: 1 },
      ],
      [3],
    );
    expect(p.get(0)).toEqual(["http"]);
    expect(p.get(1)).toEqual(["mcp"]);
  });

  it("when every object is full, calls wait in the least loaded ones, spread", () => {
    const full = Array.from({ length: RUNNER_OBJECTS }, (_, i) => (i === 5 ? 3 : 4));
    const p = placeInObjects(calls(3), full);
    expect(p.get(5)).toEqual(["j0"]); // the last room
    expect(p.get(0)).toEqual(["j1"]); // then waiting, spread
    expect(p.get(1)).toEqual(["j2"]);
  });
});

describe("grouping calls for Worker runners", () => {
  it("fills each group to 4 connections in order, one invocation each", () => {
    expect(groupForRunners(calls(9))).toEqual([["j0", "j1", "j2", "j3"], ["j4", "j5", "j6", "j7"], ["j8"]]);
    expect(groupForRunners([])).toEqual([]);
  });

  it("counts an MCP call as 2, starting a new group rather than overfill one", () => {
    const mixed = [
      { job_id: "a", weight: 1 },
      { job_id: "m1", weight: 2 },
      { job_id: "b", weight: 1 },
      { job_id: "m2", weight: 2 },
      { job_id: "m3", weight: 2 },
    ];
    expect(groupForRunners(mixed)).toEqual([
      ["a", "m1", "b"],
      ["m2", "m3"],
    ]);
  });
});
