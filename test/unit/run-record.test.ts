import { describe, expect, it } from "vitest";
import { recoveryStep, type RunRecord } from "../../durable-objects/runner/run-record";

const NOW = Date.parse("2026-11-01T10:00:00.000Z");
const claim = (over: Partial<NonNullable<RunRecord["claim"]>> = {}) => ({
  status: "claimed" as const,
  lease: "lease-1",
  attempt: 1,
  tool_name: "search",
  tool_args: "{}",
  read_only: false,
  deadline_at: NOW + 60_000,
  kind: "tool" as const,
  context_id: null,
  spec: null,
  ...over,
});
const record = (over: Partial<RunRecord> = {}): RunRecord => ({
  message: { tenant: "acme", chat_id: "c", job_id: "search-1", attempt: 1 },
  claim: claim(),
  attempt: 1,
  sent: 1,
  ...over,
});

describe("what a runner does when no live execution holds its job", () => {
  it("re-sends a stored outcome before anything else", () => {
    expect(recoveryStep(record({ outcome: { state: "success", result: "x", attempt: 1 } }), NOW + 999_999)).toEqual({ step: "report" });
  });

  it("claims again when the claim never completed", () => {
    expect(recoveryStep(record({ claim: null, sent: 0 }), NOW)).toEqual({ step: "claim" });
  });

  it("only cleans up past the deadline: the chat ends the job `timeout`", () => {
    expect(recoveryStep(record(), NOW + 60_000)).toEqual({ step: "clear" });
  });

  it("sends an attempt that provably never left", () => {
    expect(recoveryStep(record({ attempt: 2, sent: 1 }), NOW)).toEqual({ step: "resume", attempt: 2 });
    expect(recoveryStep(record({ sent: 0 }), NOW)).toEqual({ step: "resume", attempt: 1 });
  });

  it("retries a read-only tool that may have been called, with the next attempt", () => {
    expect(recoveryStep(record({ claim: claim({ read_only: true }) }), NOW)).toEqual({ step: "resume", attempt: 2 });
  });

  it("never re-sends a side-effecting tool or http_request that may have been called", () => {
    expect(recoveryStep(record(), NOW)).toEqual({ step: "outcome_unknown" });
    expect(recoveryStep(record({ claim: claim({ tool_name: "http_request", read_only: true }) }), NOW)).toEqual({ step: "outcome_unknown" });
  });
});
