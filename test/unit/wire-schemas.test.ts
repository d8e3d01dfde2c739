/**
 * The payload builders and the zod schemas behind /openapi.json describe the
 * same objects: every built payload parses under the schema with no key left over.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as calls from "../../src/core/api/calls";
import { eventEnvelope } from "../../src/core/api/events";
import * as schemas from "../../src/core/api/jobs";
import { jobRecord } from "../../src/core/jobs/job";
import { resultsPayload, startedPayload } from "../../src/core/jobs/payloads";
import { admittedCall, toolCallResult } from "../../src/core/jobs/tool-call-results";
import { T0, job } from "./fixtures";

const exact = <T extends z.ZodObject>(schema: T) => schema.strict();
const finished = job({
  state: "success",
  tool_call_id: "call_1",
  started_at: T0 + 10,
  completed_at: T0 + 510,
  result: "x".repeat(50),
  usage: '{"llm_calls":1}',
});
const running = job({ job_id: "sleep-BBBBBBBBBBBB", state: "running", started_at: T0 + 5 });

describe("wire schemas", () => {
  it("describe the results payload exactly, including waits that timed out", () => {
    const payload = resultsPayload([finished, running], { now: T0 + 1000, maxResultChars: 10, waitTimedOut: true });
    const parsed = exact(schemas.resultsPayload)
      .extend({ jobs: z.array(exact(schemas.snapshot)) })
      .parse(payload);
    expect(parsed).toEqual(payload);
    expect(payload.jobs[0]).toMatchObject({ tool_call_id: "call_1", result_truncated: true, usage: { llm_calls: 1 } });
    expect(Object.keys(schemas.snapshot.shape).slice(0, 4)).toEqual(["job_id", "tool_name", "tool_call_id", "state"]);
  });

  it("describe a running MCP job's progress exactly", () => {
    const mcp = job({
      job_id: "docssearch-CCCCCCCCCCCC",
      tool_name: "docs__search",
      state: "running",
      started_at: T0,
      progress: '{"progress":1,"total":3,"message":"m"}',
    });
    const payload = resultsPayload([mcp], { now: T0 + 1000, maxResultChars: 10 });
    expect(
      exact(schemas.resultsPayload)
        .extend({ jobs: z.array(exact(schemas.snapshot)) })
        .parse(payload),
    ).toEqual(payload);
    expect(payload.jobs[0]!.progress).toEqual({ progress: 1, total: 3, message: "m" });
  });

  it("describe an MCP job's record with its content parts", () => {
    const content = [
      { type: "text", text: "a" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ];
    const record = jobRecord({ ...finished, content: JSON.stringify(content) });
    expect(exact(schemas.jobRecord).parse(record)).toEqual(record);
    expect(record.content).toEqual(content);
    expect(jobRecord(finished).content).toBeNull();
  });

  it("describe the live-only job.progress event", () => {
    const data = { tenant: "acme", chat_id: "c", parent_chat_id: null, root_chat_id: "c", seq: 3 };
    const event = {
      id: "evt_x",
      type: "job.progress",
      timestamp: new Date(T0).toISOString(),
      data: { ...data, job_id: "j", batch_id: "b", tool_name: "t", progress: { progress: 1 } },
    };
    expect(eventEnvelope.parse(event)).toEqual(event);
    expect(eventEnvelope.safeParse({ ...event, data: { ...event.data, progress: { total: 1 } } }).success).toBe(false);
  });

  it("describe the started payload exactly", () => {
    const payload = startedPayload([job()], { now: T0, maxResultChars: 10 });
    expect(
      exact(schemas.startedPayload)
        .extend({ jobs: z.array(exact(schemas.snapshot)) })
        .parse(payload),
    ).toEqual(payload);
  });

  it("describe the job record exactly, in the same key order", () => {
    // A job of a kept trace: every key, `trace_id` last (docs/api.md#traces).
    const traced = { t: "4bf92f3577b34da6a3ce929d0e0e4736", s: "00f067aa0ba902b7", p: "b7ad6b7169203331" };
    const record = jobRecord({ ...finished, trace: JSON.stringify(traced) });
    expect(exact(schemas.jobRecord).parse(record)).toEqual(record);
    expect(Object.keys(record)).toEqual(Object.keys(schemas.jobRecord.shape));
    expect(record.trace_id).toBe(traced.t);
    expect(jobRecord(finished)).not.toHaveProperty("trace_id");
    expect(record.tool_call_id).toBe("call_1");
    expect(jobRecord(job()).tool_call_id).toBeNull();
  });

  it("describe the tool-calls answer entries exactly: plain, parallel and refused", () => {
    const spec = {
      index: 0,
      tool_name: "echo",
      tool_args: "{}",
      kind: "tool" as const,
      read_only: true,
      timeout_seconds: 60,
    };
    const ids = new Map([[0, finished.job_id]]);
    const rows = new Map([[finished.job_id, finished]]);
    const view = { now: T0 + 1000, maxResultChars: 10 };
    const base = { index: 0, tool_call_id: "c", name: "echo" };
    const entries = [
      toolCallResult(admittedCall({ ...base, spec }, new Map(), ids), rows, view),
      toolCallResult(
        admittedCall({ ...base, parallel: { specs: [spec], job_ids: [], wait: true, cancel: false } }, new Map(), ids),
        rows,
        view,
      ),
      toolCallResult(
        admittedCall({ ...base, error: { code: "unknown_tool", message: "no" } }, new Map(), ids),
        rows,
        view,
      ),
    ];
    for (const entry of entries) expect(exact(calls.toolCallResult).parse(entry)).toEqual(entry);
  });
});
