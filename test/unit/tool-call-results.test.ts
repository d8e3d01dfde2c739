/**
 * `/tool-calls` answers (docs/api.md#tiered-execution-and-the-tool-calls-route): admission outcomes and the
 * entry for each call.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/core/http/errors";
import type { JobSpec } from "../../src/core/jobs/job-spec";
import type { ToolCallEntry } from "../../src/core/jobs/tool-calls-messages";
import { admittedCall, deliveredJobIds, reportedJobIds, toolCallResult } from "../../src/core/jobs/tool-call-results";
import { job, T0 } from "./fixtures";

const spec = (index: number): JobSpec => ({
  index,
  tool_name: "echo",
  tool_args: "{}",
  kind: "tool",
  read_only: true,
  timeout_seconds: 60,
});
const entry = (over: Partial<ToolCallEntry>): ToolCallEntry => ({
  index: 0,
  tool_call_id: "c1",
  name: "echo",
  ...over,
});
const parallelEntry = (over: Partial<NonNullable<ToolCallEntry["parallel"]>> = {}) =>
  entry({
    name: "parallel",
    parallel: { specs: [spec(1), spec(2)], job_ids: ["old-1"], wait: true, cancel: false, ...over },
  });
const ids = new Map([
  [0, "echo-0"],
  [1, "echo-1"],
  [2, "echo-2"],
]);
const view = { now: T0 + 5000, maxResultChars: 100 };
const rows = (...list: ReturnType<typeof job>[]) => new Map(list.map((r) => [r.job_id, r]));

describe("admittedCall", () => {
  it("keeps a refusal the worker already gave", () => {
    const error = { code: "unknown_tool", message: "nope" };
    expect(admittedCall(entry({ error }), new Map(), ids)).toEqual({ tool_call_id: "c1", name: "echo", error });
  });

  it("names the job of a plain call", () => {
    expect(admittedCall(entry({ spec: spec(0) }), new Map(), ids)).toEqual({
      tool_call_id: "c1",
      name: "echo",
      job_id: "echo-0",
    });
  });

  it("reports a parallel call's earlier jobs first, then its own", () => {
    expect(admittedCall(parallelEntry(), new Map(), ids).parallel).toEqual({
      job_ids: ["old-1", "echo-1", "echo-2"],
      started: ["echo-1", "echo-2"],
      wait: true,
      cancel: false,
    });
  });

  it("refuses a whole parallel call when one of its jobs is refused", () => {
    const refusal = new ApiError(429, "subagent_limit", "full", { scope: "chat" });
    expect(admittedCall(parallelEntry(), new Map([[2, refusal]]), ids)).toEqual({
      tool_call_id: "c1",
      name: "parallel",
      error: { code: "subagent_limit", message: "full", scope: "chat" },
    });
  });
});

describe("toolCallResult for a parallel call", () => {
  const done = (id: string) =>
    job({ job_id: id, state: "success", result: `r-${id}`, started_at: T0, completed_at: T0 + 1000 });
  const call = (over: Partial<NonNullable<ToolCallEntry["parallel"]>> = {}) =>
    admittedCall(parallelEntry(over), new Map(), ids);

  it("waits: no content while a job is active, then the results payload", () => {
    const running = toolCallResult(
      call(),
      rows(done("old-1"), job({ job_id: "echo-1", state: "running" }), done("echo-2")),
      view,
    );
    expect(running).toEqual({
      tool_call_id: "c1",
      name: "parallel",
      job_id: null,
      job_ids: ["old-1", "echo-1", "echo-2"],
      state: "running",
    });
    const finished = toolCallResult(call(), rows(done("old-1"), done("echo-1"), done("echo-2")), view);
    expect(finished.state).toBe("success");
    const payload = JSON.parse(finished.content!);
    expect(payload.status).toBe("success");
    expect(payload.jobs.map((j: { result: string }) => j.result)).toEqual(["r-old-1", "r-echo-1", "r-echo-2"]);
  });

  it("wait:false answers the started payload at once when it only starts jobs", () => {
    const result = toolCallResult(
      call({ wait: false, job_ids: [] }),
      rows(job({ job_id: "echo-1" }), job({ job_id: "echo-2" })),
      view,
    );
    expect(result.state).toBe("success");
    expect(JSON.parse(result.content!).status).toBe("started");
  });

  it("a failed job inside is still a successful call: its error is in the payload", () => {
    const failed = job({ job_id: "echo-2", state: "error", error: "boom", started_at: T0, completed_at: T0 + 1 });
    const result = toolCallResult(call({ job_ids: [] }), rows(done("echo-1"), failed), view);
    expect(result.state).toBe("success");
    expect(JSON.parse(result.content!)).toMatchObject({
      status: "partial",
      jobs: [{ state: "success" }, { state: "error", error: "boom" }],
    });
  });
});

describe("which jobs an answer waits for and collects", () => {
  it("excludes the jobs of a parallel call left running in the background", () => {
    const calls = [
      admittedCall(entry({ spec: spec(0) }), new Map(), ids),
      admittedCall(parallelEntry({ wait: false, job_ids: [] }), new Map(), ids),
    ];
    expect(deliveredJobIds(calls)).toEqual(["echo-0"]);
    expect(reportedJobIds(calls)).toEqual(["echo-0", "echo-1", "echo-2"]);
  });
});
