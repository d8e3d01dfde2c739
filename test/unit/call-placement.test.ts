import { describe, expect, it } from "vitest";
import { callWeight, groupForRunners, MAX_LANES, placeCalls } from "../../durable-objects/chat/jobs/call-placement";

const calls = (n: number, weight = 1, prefix = "j") => Array.from({ length: n }, (_, i) => ({ job_id: `${prefix}${i}`, weight }));
const lanes = (p: ReturnType<typeof placeCalls>) => Object.fromEntries([...p.lanes].map(([k, ids]) => [k, ids.length]));

describe("placing a chat's calls", () => {
  it("runs 4 in the chat and the next 4 in one lane", () => {
    const p = placeCalls(calls(8), 0, []);
    expect(p.here).toEqual(["j0", "j1", "j2", "j3"]);
    expect(lanes(p)).toEqual({ 0: 4 });
  });

  it("spreads 32 calls over the chat and 7 lanes of 4", () => {
    const p = placeCalls(calls(32), 0, []);
    expect(p.here).toHaveLength(4);
    expect(lanes(p)).toEqual({ 0: 4, 1: 4, 2: 4, 3: 4, 4: 4, 5: 4, 6: 4 });
  });

  it("counts an MCP call (or one whose target is unknown) as 2", () => {
    expect(callWeight({ kind: "mcp", endpoint: { name: "d", url: "https://x", headers: {} }, tool: "t", max_response_bytes: 1, secrets: [] })).toBe(2);
    expect(callWeight(undefined)).toBe(2);
    expect(callWeight({ kind: "http_tool", url: "https://x", secret: "s", max_response_bytes: 1, secrets: [] })).toBe(1);
    const p = placeCalls(calls(6, 2), 0, []);
    expect(p.here).toEqual(["j0", "j1"]);
    expect(lanes(p)).toEqual({ 0: 2, 1: 2 });
  });

  it("fills what the chat and its lanes already hold before starting another lane", () => {
    const p = placeCalls(calls(5), 3, [4, 1]);
    expect(p.here).toEqual(["j0"]);
    expect(lanes(p)).toEqual({ 1: 3, 2: 1 });
  });

  it("a heavy call skips a lane without room for it, and a busy chat hands everything on", () => {
    const p = placeCalls([{ job_id: "mcp", weight: 2 }, { job_id: "http", weight: 1 }], 4, [3]);
    expect(p.here).toEqual([]);
    expect(p.lanes.get(0)).toEqual(["http"]);
    expect(p.lanes.get(1)).toEqual(["mcp"]);
  });

  it("when every lane is full, calls wait in the least loaded lanes rather than overfill the chat", () => {
    const full = Array.from({ length: MAX_LANES }, (_, i) => (i === 5 ? 3 : 4));
    const p = placeCalls(calls(3), 4, full);
    expect(p.here).toEqual([]);
    expect(p.lanes.get(5)).toEqual(["j0"]); // the last room
    expect(p.lanes.get(0)).toEqual(["j1"]); // then waiting, spread
    expect(p.lanes.get(1)).toEqual(["j2"]);
  });
});

describe("grouping calls for Worker runners", () => {
  it("fills each group to 4 connections in order, one invocation each", () => {
    expect(groupForRunners(calls(9))).toEqual([["j0", "j1", "j2", "j3"], ["j4", "j5", "j6", "j7"], ["j8"]]);
    expect(groupForRunners([])).toEqual([]);
  });

  it("counts an MCP call as 2, starting a new group rather than overfill one", () => {
    const mixed = [{ job_id: "a", weight: 1 }, { job_id: "m1", weight: 2 }, { job_id: "b", weight: 1 }, { job_id: "m2", weight: 2 }, { job_id: "m3", weight: 2 }];
    expect(groupForRunners(mixed)).toEqual([["a", "m1", "b"], ["m2", "m3"]]);
  });
});
