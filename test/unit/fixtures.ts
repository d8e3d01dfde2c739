/** Shared builders for unit tests of the pure modules. */
import { ApiError } from "../../src/core/http/errors";
import type { JobRow } from "../../src/core/jobs/job";

export const T0 = Date.parse("2026-11-01T10:00:00.000Z");

/** A job row as the ChatDO stores it, pending by default. */
export function job(over: Partial<JobRow & { content: string | null }> = {}): JobRow & { content: string | null } {
  return {
    job_id: "echo-AAAAAAAAAAAA",
    chat_id: "chat-1",
    batch_id: "batch-1",
    idx: 0,
    tool_name: "echo",
    tool_call_id: null,
    tool_args: "{}",
    kind: "tool",
    state: "pending",
    read_only: 1,
    timeout_seconds: 600,
    created_at: T0,
    started_at: null,
    completed_at: null,
    attempt: 0,
    sent: 0,
    lease: null,
    deadline_at: T0 + 600_000,
    result: null,
    result_truncated: 0,
    error: null,
    trace: null,
    error_type: null,
    rerun_of: null,
    spend: null,
    waits: null,
    context_id: null,
    usage: null,
    collected_at: null,
    dispatched_at: null,
    spec: null,
    waiting_for: null,
    wait_seq: null,
    metadata: null,
    flow: null,
    approval: null,
    budget: null,
    tree_slot: null,
    progress: null,
    runner: null,
    renewed_at: null,
    content: null,
    ...over,
  };
}

/** The ApiError `fn` throws; fails the test when it throws nothing or something else. */
export function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError to be thrown");
}
