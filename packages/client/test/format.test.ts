import { describe, expect, it } from "vitest";
import {
  cell,
  eventLine,
  jobTable,
  progressLines,
  telemetryLine,
  toolTable,
  track,
  type RunningJob,
} from "../src/cli/format.js";
import type { FanoutEvent } from "../src/types.js";

const source = { tenant: "t", chat_id: "c1", parent_chat_id: null, root_chat_id: "c1" };
const at = "2026-11-30T10:00:00.000Z";
const T = Date.parse(at);

describe("job tables", () => {
  it("align columns and show the first line of a result or error", () => {
    const table = jobTable([
      { job_id: "wait-1", tool_name: "wait", state: "success", duration_seconds: 1.04, result: "done\nmore" },
      { job_id: "search-22", tool_name: "search", state: "error", duration_seconds: 0.5, error: "HTTP 500" },
    ]);
    expect(table.split("\n")).toEqual([
      "job        tool    state    time  result",
      "wait-1     wait    success  1.0s  done…",
      "search-22  search  error    0.5s  Error: HTTP 500",
    ]);
    expect(jobTable([])).toBe("no jobs");
  });

  it("say why a job did not succeed, and whether running it again may help", () => {
    const table = jobTable([
      {
        job_id: "search-1",
        tool_name: "search",
        state: "error",
        duration_seconds: 0.5,
        error: "HTTP 503: busy",
        error_type: "http_status",
        retryable: true,
      },
      {
        job_id: "pay-1",
        tool_name: "pay",
        state: "error",
        duration_seconds: 0.1,
        error: "No.",
        error_type: "denied",
        retryable: false,
      },
    ]);
    expect(table.split("\n").slice(1)).toEqual([
      "search-1  search  error  0.5s  [http_status, retryable] Error: HTTP 503: busy",
      "pay-1     pay     error  0.1s  [denied] Error: No.",
    ]);
  });

  it("cut long cells by characters, not bytes", () => {
    expect(cell("é".repeat(70), 10)).toBe(`${"é".repeat(9)}…`);
    expect(cell("short", 10)).toBe("short");
  });
});

describe("telemetry", () => {
  it("says what was exported and dropped, and the latest failure on a line of its own", () => {
    expect(telemetryLine({ exported: 0, dropped: 0 })).toBe("exported 0  dropped 0");
    expect(
      telemetryLine({
        exported: 42,
        dropped: 2,
        last_export_at: at,
        last_error: "Export to https://otlp.example failed: HTTP 503",
      }).split("\n"),
    ).toEqual([
      `exported 42  dropped 2  last export ${at}`,
      "last error: Export to https://otlp.example failed: HTTP 503",
    ]);
  });
});

describe("tool lists", () => {
  it("align names and show the first line of each description, then the prompts", () => {
    const tools = [
      {
        type: "function" as const,
        function: { name: "parallel", description: "Run calls at once.\nMore.", parameters: { type: "object" } },
      },
      { type: "function" as const, function: { name: "wait", description: "", parameters: { type: "object" } } },
    ];
    expect(toolTable({ tools, prompts: { parallel: "…" } }).split("\n")).toEqual([
      "tool      description",
      "parallel  Run calls at once.…",
      "wait",
      "",
      "prompts: parallel (--json prints them)",
    ]);
    expect(toolTable({ tools: [], prompts: {} })).toBe("tool  description");
  });
});

describe("the watch display", () => {
  const started = (job_id: string, timestamp = at): FanoutEvent => ({
    id: "evt_1",
    type: "job.started",
    timestamp,
    data: { ...source, seq: 1, job_id, batch_id: "b1", tool_name: "wait" },
  });
  const finished: FanoutEvent = {
    id: "evt_2",
    type: "job.finished",
    timestamp: at,
    data: {
      ...source,
      seq: 2,
      batch_id: "b1",
      job_id: "wait-1",
      tool_name: "wait",
      state: "success",
      duration_seconds: 2.25,
      result: "ok",
    },
  };

  it("tracks running jobs from job.started to job.finished", () => {
    let running: RunningJob[] = [];
    running = track(running, started("wait-1"));
    running = track(running, started("wait-2"));
    running = track(running, started("wait-1")); // a repeated delivery is one job
    expect(running.map((j) => j.job_id)).toEqual(["wait-2", "wait-1"]);
    expect(track(running, finished).map((j) => j.job_id)).toEqual(["wait-2"]);
  });

  it("draws each running job with a spinner and its time", () => {
    const running = track([], started("wait-1"));
    expect(progressLines(running, T + 3_250)).toEqual(["⠹ c1  wait-1  wait  3.3s"]);
    expect(progressLines(running, T + 3_350)[0]).toMatch(/^⠸ /); // the next frame 100 ms later
  });

  it("gives ended jobs and batches a line, other events none", () => {
    expect(eventLine(finished)).toBe("✓ c1  wait-1  wait  success  2.3s  ok");
    const batch: FanoutEvent = {
      id: "evt_3",
      type: "batch.finished",
      timestamp: at,
      data: { ...source, seq: 3, batch_id: "b1", results: { status: "partial", jobs: [] } },
    };
    expect(eventLine(batch)).toBe("■ c1  b1  partial (0 jobs)");
    expect(eventLine(started("wait-1"))).toBeUndefined();
  });
});
