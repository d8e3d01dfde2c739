import { describe, expect, it } from "vitest";
import { recoveryStep } from "../../durable-objects/chat/jobs/recovery";

const NOW = Date.parse("2026-11-01T10:00:00.000Z");
type Job = Parameters<typeof recoveryStep>[0];
const job = (over: Partial<Job> = {}): Job => ({
  state: "running",
  kind: "tool",
  tool_name: "search",
  read_only: 0,
  attempt: 1,
  sent: 1,
  deadline_at: NOW + 60_000,
  ...over,
});

describe("what the chat does with a running job no live execution holds", () => {
  it("leaves jobs that are not running, built-in waits, and jobs past their deadline (the sweep ends them)", () => {
    expect(recoveryStep(job({ state: "pending" }), NOW)).toEqual({ step: "none" });
    expect(recoveryStep(job({ state: "success" }), NOW)).toEqual({ step: "none" });
    expect(recoveryStep(job({ tool_name: "wait", read_only: 1 }), NOW)).toEqual({ step: "none" });
    expect(recoveryStep(job(), NOW + 60_000)).toEqual({ step: "none" });
  });

  it("hands a subordinate to its child chat until the child has it", () => {
    expect(recoveryStep(job({ kind: "subordinate", sent: 0 }), NOW)).toEqual({ step: "hand" });
    expect(recoveryStep(job({ kind: "subordinate", sent: 1 }), NOW)).toEqual({ step: "none" });
  });

  it("sends an attempt that provably never left", () => {
    expect(recoveryStep(job({ attempt: 2, sent: 1 }), NOW)).toEqual({ step: "resume", attempt: 2 });
    expect(recoveryStep(job({ sent: 0 }), NOW)).toEqual({ step: "resume", attempt: 1 });
  });

  it("retries a read-only tool that may have been called, with the next attempt", () => {
    expect(recoveryStep(job({ read_only: 1 }), NOW)).toEqual({ step: "resume", attempt: 2 });
  });

  it("never re-sends a side-effecting tool or http_request that may have been called", () => {
    expect(recoveryStep(job(), NOW)).toEqual({ step: "outcome_unknown" });
    expect(recoveryStep(job({ tool_name: "http_request", read_only: 1 }), NOW)).toEqual({ step: "outcome_unknown" });
  });
});
