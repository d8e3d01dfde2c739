import { describe, expect, it } from "vitest";
import { T0, job } from "./fixtures";
import type { JobRow, JobState } from "../../src/core/jobs/job";
import { batchStatus, payloadText, resultsPayload, snapshot, startedPayload } from "../../src/core/jobs/payloads";

const done = (over: Partial<JobRow> = {}) =>
  job({ state: "success", started_at: T0 + 100, completed_at: T0 + 1_600, result: "ok", ...over });

const STARTED_TEXT = "Use the parallel tool with job_ids to await or cancel these background jobs.";
const RUNNING_TEXT =
  'Some jobs are still running. Call `parallel` with `action: "await"` and the listed `job_ids` to wait again, or `action: "cancel"` to stop them.';

const opts = { now: T0 + 10_000, maxResultChars: 16_000 };

describe("snapshot", () => {
  it("lists the keys of a finished subordinate job in contract order", () => {
    const s = snapshot(
      done({
        state: "error",
        kind: "subordinate",
        context_id: "sub-abc",
        result: "x".repeat(20),
        error: "boom",
        usage: '{"llm_calls":2,"prompt_tokens":10,"completion_tokens":5,"tool_calls":1}',
      }),
      { ...opts, maxResultChars: 5, includeResult: true },
    );
    expect(Object.keys(s)).toEqual([
      "job_id",
      "tool_name",
      "state",
      "duration_seconds",
      "context_id",
      "result",
      "result_truncated",
      "error",
      "error_type",
      "retryable",
      "usage",
    ]);
  });

  it("puts the call's own id right after tool_name, when the job has one", () => {
    const s = snapshot(
      done({
        tool_call_id: "toolu_01",
        kind: "subordinate",
        context_id: "sub-abc",
        error: "boom",
        state: "error",
        usage: '{"llm_calls":1}',
      }),
      { ...opts, includeResult: true },
    );
    expect(Object.keys(s)).toEqual([
      "job_id",
      "tool_name",
      "tool_call_id",
      "state",
      "duration_seconds",
      "context_id",
      "result",
      "error",
      "error_type",
      "retryable",
      "usage",
    ]);
    expect(s.tool_call_id).toBe("toolu_01");
  });

  it("carries the call's id on started snapshots and in the compact JSON", () => {
    const started = startedPayload([job({ tool_call_id: "call_1" })], opts);
    expect(JSON.stringify(started.jobs[0])).toBe(
      '{"job_id":"echo-AAAAAAAAAAAA","tool_name":"echo","tool_call_id":"call_1","state":"pending","duration_seconds":0}',
    );
    const results = resultsPayload(
      [done({ tool_call_id: "call_2", started_at: T0, completed_at: T0 + 250, result: "hi" })],
      opts,
    );
    expect(JSON.stringify(results)).toBe(
      '{"status":"success","jobs":[{"job_id":"echo-AAAAAAAAAAAA","tool_name":"echo","tool_call_id":"call_2","state":"success","duration_seconds":0.25,"result":"hi"}]}',
    );
  });

  it("leaves tool_call_id out for a job whose call had no id", () => {
    expect("tool_call_id" in snapshot(done({ tool_call_id: null }), { ...opts, includeResult: true })).toBe(false);
  });

  it("puts wait_timed_out last on an active job", () => {
    const s = snapshot(job({ state: "running", started_at: T0, context_id: "sub-abc", usage: '{"llm_calls":1}' }), {
      ...opts,
      includeResult: true,
      waitTimedOut: true,
    });
    expect(Object.keys(s)).toEqual([
      "job_id",
      "tool_name",
      "state",
      "duration_seconds",
      "context_id",
      "usage",
      "wait_timed_out",
    ]);
    expect(s.wait_timed_out).toBe(true);
  });

  it("puts an active MCP job's progress after usage and before wait_timed_out", () => {
    const progress = '{"progress":2,"total":5,"message":"step 2"}';
    const s = snapshot(job({ state: "running", started_at: T0, usage: '{"llm_calls":1}', progress }), {
      ...opts,
      includeResult: true,
      waitTimedOut: true,
    });
    expect(Object.keys(s)).toEqual([
      "job_id",
      "tool_name",
      "state",
      "duration_seconds",
      "usage",
      "progress",
      "wait_timed_out",
    ]);
    expect(s.progress).toEqual({ progress: 2, total: 5, message: "step 2" });
    expect(
      snapshot(job({ state: "running", started_at: T0, progress }), { ...opts, includeResult: false }).progress,
    ).toEqual({ progress: 2, total: 5, message: "step 2" });
  });

  it("leaves progress out once the job is terminal, even if the row still holds one", () => {
    const s = snapshot(done({ progress: '{"progress":5,"total":5}' }), { ...opts, includeResult: true });
    expect(s).not.toHaveProperty("progress");
  });

  it("keeps only the four required keys for a plain pending job", () => {
    const s = snapshot(job(), { ...opts, includeResult: true, waitTimedOut: false });
    expect(s).toEqual({ job_id: "echo-AAAAAAAAAAAA", tool_name: "echo", state: "pending", duration_seconds: 0 });
    expect(Object.keys(s)).toEqual(["job_id", "tool_name", "state", "duration_seconds"]);
  });

  it("reports a duration of 0 while pending, however old the job is", () => {
    const s = snapshot(job({ created_at: T0 - 3_600_000 }), { ...opts, includeResult: true });
    expect(s.duration_seconds).toBe(0);
  });

  it("measures a running job from its claim, not its creation", () => {
    const s = snapshot(job({ state: "running", created_at: T0 - 60_000, started_at: T0 + 2_000 }), {
      ...opts,
      includeResult: true,
    });
    expect(s.duration_seconds).toBe(8);
  });

  it("measures a finished job from claim to completion with millisecond precision", () => {
    const s = snapshot(done({ created_at: T0 - 5_000, started_at: T0 + 1_000, completed_at: T0 + 3_456 }), {
      now: T0 + 999_999,
      maxResultChars: 100,
      includeResult: true,
    });
    expect(s.duration_seconds).toBe(2.456);
  });

  it("gives a duration of 0 to a job cancelled before it was claimed", () => {
    const s = snapshot(job({ state: "cancelled", completed_at: T0 + 5_000, error: "Parallel job was cancelled." }), {
      ...opts,
      includeResult: true,
    });
    expect(s.duration_seconds).toBe(0);
  });

  it("keeps a result at exactly max_result_chars whole and unflagged", () => {
    const s = snapshot(done({ result: "abcde" }), { ...opts, maxResultChars: 5, includeResult: true });
    expect(s.result).toBe("abcde");
    expect(s).not.toHaveProperty("result_truncated");
  });

  it("cuts a result longer than max_result_chars and flags it", () => {
    const s = snapshot(done({ result: "abcdefghij" }), { ...opts, maxResultChars: 4, includeResult: true });
    expect(s.result).toBe("abcd");
    expect(s.result_truncated).toBe(true);
  });

  it("flags a result that was already cut when stored", () => {
    const s = snapshot(done({ result: "short", result_truncated: 1 }), { ...opts, includeResult: true });
    expect(s.result).toBe("short");
    expect(s.result_truncated).toBe(true);
  });

  it("never cuts a character in half", () => {
    const s = snapshot(done({ result: "a😀😀" }), { ...opts, maxResultChars: 2, includeResult: true });
    expect(s.result_truncated).toBe(true);
    expect(s.result!.isWellFormed()).toBe(true);
    expect("a😀😀".startsWith(s.result!)).toBe(true);
  });

  it("keeps an empty result", () => {
    const s = snapshot(done({ result: "" }), { ...opts, includeResult: true });
    expect(s.result).toBe("");
  });

  it("parses usage into an object, every field there (a report from before a field existed reads 0 of it)", () => {
    const s = snapshot(done({ usage: '{"llm_calls":3,"prompt_tokens":100}' }), { ...opts, includeResult: true });
    expect(s.usage).toEqual({ llm_calls: 3, prompt_tokens: 100, completion_tokens: 0, tool_calls: 0, subagents: 0 });
  });

  it("leaves out result and error when results are not included", () => {
    const s = snapshot(done({ error: "x" }), { ...opts, includeResult: false });
    expect(s).not.toHaveProperty("result");
    expect(s).not.toHaveProperty("error");
    expect(s.state).toBe("success");
  });

  it("never marks a terminal job as wait_timed_out", () => {
    const s = snapshot(done(), { ...opts, includeResult: true, waitTimedOut: true });
    expect(s).not.toHaveProperty("wait_timed_out");
  });
});

describe("batchStatus", () => {
  const cases: [JobState[], boolean, string][] = [
    [["success"], false, "success"],
    [["success", "success", "success"], false, "success"],
    [["success", "error"], false, "partial"],
    [["success", "timeout"], false, "partial"],
    [["success", "cancelled"], false, "partial"],
    [["error", "success", "cancelled", "timeout"], false, "partial"],
    [["error"], false, "error"],
    [["error", "timeout"], false, "error"],
    [["timeout"], false, "error"],
    [["cancelled"], false, "cancelled"],
    [["cancelled", "cancelled"], false, "cancelled"],
    [["cancelled", "error"], false, "error"],
    [["cancelled", "timeout"], false, "error"],
    [["running"], false, "running"],
    [["pending"], false, "running"],
    [["success", "running"], false, "running"],
    [["error", "pending"], false, "running"],
    [["running"], true, "waiting"],
    [["pending", "success"], true, "waiting"],
    [["cancelled", "running"], true, "waiting"],
    [["success", "success"], true, "success"],
    [["cancelled"], true, "cancelled"],
  ];

  it.each(cases)("gives %j (wait timed out: %s) the status %s", (states, timedOut, expected) => {
    expect(batchStatus(states, timedOut)).toBe(expected);
  });
});

describe("resultsPayload", () => {
  it("has no wait_timeout and no instruction when every job is terminal", () => {
    const p = resultsPayload([done(), done({ job_id: "echo-B", state: "error", result: null, error: "boom" })], opts);
    expect(p.status).toBe("partial");
    expect(Object.keys(p)).toEqual(["status", "jobs"]);
  });

  it("ignores a timed-out wait once every job is terminal", () => {
    const p = resultsPayload([done()], { ...opts, waitTimedOut: true });
    expect(p.status).toBe("success");
    expect(p).not.toHaveProperty("wait_timeout");
    expect(p).not.toHaveProperty("instruction");
    expect(p.jobs[0]).not.toHaveProperty("wait_timed_out");
  });

  it("adds the instruction but no wait_timeout when jobs are active and the wait did not time out", () => {
    const p = resultsPayload([done(), job({ job_id: "echo-B", state: "running", started_at: T0 })], opts);
    expect(p.status).toBe("running");
    expect(Object.keys(p)).toEqual(["status", "jobs", "instruction"]);
    expect(p.instruction).toBe(RUNNING_TEXT);
    expect(p.jobs[1]).not.toHaveProperty("wait_timed_out");
  });

  it("marks a timed-out wait and every still-active job", () => {
    const p = resultsPayload(
      [done(), job({ job_id: "echo-B", state: "running", started_at: T0 }), job({ job_id: "echo-C" })],
      { ...opts, waitTimedOut: true },
    );
    expect(p.status).toBe("waiting");
    expect(Object.keys(p)).toEqual(["status", "jobs", "wait_timeout", "instruction"]);
    expect(p.wait_timeout).toBe(true);
    expect(p.instruction).toBe(RUNNING_TEXT);
    expect(p.jobs.map((j) => j.wait_timed_out)).toEqual([undefined, true, true]);
  });

  it("keeps the jobs in the order given", () => {
    const p = resultsPayload([done({ job_id: "c" }), done({ job_id: "a" }), done({ job_id: "b" })], opts);
    expect(p.jobs.map((j) => j.job_id)).toEqual(["c", "a", "b"]);
  });

  it("includes results and errors in the snapshots", () => {
    const p = resultsPayload(
      [done({ result: "r1" }), done({ job_id: "x", state: "error", result: null, error: "e1" })],
      opts,
    );
    expect(p.jobs[0]?.result).toBe("r1");
    expect(p.jobs[1]?.error).toBe("e1");
  });

  it("serialises to compact JSON in contract key order", () => {
    const p = resultsPayload(
      [
        job({ job_id: "echo-B", state: "running", started_at: T0 + 8_500 }),
        done({ job_id: "echo-A", started_at: T0, completed_at: T0 + 2_000, result: "ok" }),
      ],
      { ...opts, waitTimedOut: true },
    );
    expect(JSON.stringify(p)).toBe(
      '{"status":"waiting","jobs":[' +
        '{"job_id":"echo-B","tool_name":"echo","state":"running","duration_seconds":1.5,"wait_timed_out":true},' +
        '{"job_id":"echo-A","tool_name":"echo","state":"success","duration_seconds":2,"result":"ok"}' +
        '],"wait_timeout":true,"instruction":' +
        JSON.stringify(RUNNING_TEXT) +
        "}",
    );
    expect(payloadText(p)).toBe(JSON.stringify(p));
  });

  it("serialises a finished batch without the optional keys", () => {
    const p = resultsPayload([done({ job_id: "echo-A", started_at: T0, completed_at: T0 + 250, result: "hi" })], opts);
    expect(JSON.stringify(p)).toBe(
      '{"status":"success","jobs":[{"job_id":"echo-A","tool_name":"echo","state":"success","duration_seconds":0.25,"result":"hi"}]}',
    );
  });

  it("reports an all-cancelled batch as cancelled with the cancellation errors", () => {
    const cancelled = (id: string) =>
      job({ job_id: id, state: "cancelled", completed_at: T0 + 1, error: "Parallel job was cancelled." });
    const p = resultsPayload([cancelled("a"), cancelled("b")], opts);
    expect(p.status).toBe("cancelled");
    expect(p.jobs.map((j) => j.error)).toEqual(["Parallel job was cancelled.", "Parallel job was cancelled."]);
  });
});

describe("startedPayload", () => {
  it("has status started, the snapshots and the exact instruction", () => {
    const p = startedPayload([job({ job_id: "wait-V1StGXR8_Z5j", tool_name: "wait" })], opts);
    expect(JSON.stringify(p)).toBe(
      '{"status":"started","jobs":[{"job_id":"wait-V1StGXR8_Z5j","tool_name":"wait","state":"pending","duration_seconds":0}],' +
        `"instruction":${JSON.stringify(STARTED_TEXT)}}`,
    );
  });

  it("includes a subordinate job's context_id", () => {
    const p = startedPayload(
      [
        job({
          job_id: "spawntask-x",
          tool_name: "spawn_task",
          kind: "subordinate",
          context_id: "sub-0123456789abcdef",
        }),
      ],
      opts,
    );
    expect(p.jobs[0]).toEqual({
      job_id: "spawntask-x",
      tool_name: "spawn_task",
      state: "pending",
      duration_seconds: 0,
      context_id: "sub-0123456789abcdef",
    });
  });

  it("leaves out results and errors", () => {
    const p = startedPayload([done({ error: "late" })], opts);
    expect(p.jobs[0]).not.toHaveProperty("result");
    expect(p.jobs[0]).not.toHaveProperty("error");
    expect(p.instruction).toBe(STARTED_TEXT);
  });
});
