/**
 * Why a job did not succeed (docs/api.md#why-a-job-failed): the closed list, `retryable`'s rule,
 * and rows ended before the type was kept.
 */
import { describe, expect, it } from "vitest";
import { jobFinishedData } from "../../src/core/events/job-events";
import { ERROR_TYPES, failureOf, OUTCOME_UNKNOWN_ERROR, retryable } from "../../src/core/api/error-types";
import { jobRecord } from "../../src/core/jobs/job";
import { job, T0 } from "./fixtures";

describe("error_type and retryable", () => {
  it("is one closed list, the SPEC's", () => {
    expect([...ERROR_TYPES].sort()).toEqual(
      [
        "tool_error",
        "http_status",
        "timeout",
        "idle_timeout",
        "outcome_unknown",
        "cancelled",
        "denied",
        "approval_expired",
        "budget_exhausted",
        "flow_rejected",
        "invalid_arguments",
        "mcp_error",
        "llm_error",
        "max_steps",
        "unavailable",
      ].sort(),
    );
  });

  it("calls a read-only call retryable only after an end that says nothing about the call", () => {
    for (const type of ["timeout", "idle_timeout", "unavailable"] as const) {
      expect(retryable(type, true, null), type).toBe(true);
      expect(retryable(type, false, null), type).toBe(false); // a side effect is never run blindly again
    }
    expect(retryable("http_status", true, "HTTP 503: busy")).toBe(true);
    expect(retryable("http_status", true, "HTTP 429: slow down")).toBe(true);
    expect(retryable("http_status", true, "HTTP 408: late")).toBe(true);
    expect(retryable("http_status", true, "MCP server 'docs' answered HTTP 502: bad gateway")).toBe(true);
    expect(retryable("http_status", true, "HTTP 404: no such thing")).toBe(false);
    expect(retryable("http_status", false, "HTTP 503: busy")).toBe(false);
    for (const type of ["outcome_unknown", "denied", "invalid_arguments", "tool_error", "cancelled"] as const)
      expect(retryable(type, true, null), type).toBe(false);
  });

  it("types only jobs that did not succeed, and rows ended before the type was kept from their state and text", () => {
    const row = (state: string, error: string | null, error_type: string | null = null) =>
      failureOf({ state: state as never, error, read_only: 1, error_type });
    expect(row("success", null)).toBeNull();
    expect(row("running", null)).toBeNull();
    expect(row("error", "boom", "denied")).toEqual({ error_type: "denied", retryable: false });
    expect(row("cancelled", "Parallel job was cancelled.")).toEqual({ error_type: "cancelled", retryable: false });
    expect(row("timeout", "Timed out after 5 s.")).toEqual({ error_type: "timeout", retryable: true });
    expect(row("error", OUTCOME_UNKNOWN_ERROR)).toEqual({ error_type: "outcome_unknown", retryable: false });
    expect(row("error", "HTTP 500: oops")).toEqual({ error_type: "http_status", retryable: true });
    expect(row("error", "tool says no")).toEqual({ error_type: "tool_error", retryable: false });
  });

  it("stand on job.finished and the record, after the error they explain", () => {
    const denied = job({
      state: "error",
      error: "The call was denied by ops.",
      error_type: "denied",
      completed_at: T0 + 5,
    });
    const data = jobFinishedData(denied, 100);
    expect(data).toMatchObject({ error: "The call was denied by ops.", error_type: "denied", retryable: false });
    const keys = Object.keys(data);
    expect(keys.indexOf("error_type")).toBe(keys.indexOf("error") + 1);
    expect(jobRecord(denied)).toMatchObject({ error_type: "denied", retryable: false });
  });
});
