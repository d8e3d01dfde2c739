import { describe, expect, it } from "vitest";
import { callHost, WAIT_UNTIL_GRACE_MS, WORKER_RUNNER_LIFETIME_MS } from "../../src/core/runner/call-host";
import { RENEW_EVERY_MS, RUNNER_LAPSES_AFTER_MS, runnerLapsed } from "../../src/core/runner/lease";

const now = 1_000_000;
const due = (seconds: number) => now + seconds * 1000;

describe("the one rule for a call's host", () => {
  it("is an invocation the chat starts itself when the deadline falls within waitUntil's grace, less 5 s for the hand-over and the report", () => {
    expect(WAIT_UNTIL_GRACE_MS).toBe(30_000);
    expect(callHost(due(1), now)).toBe("invocation");
    expect(callHost(due(25), now)).toBe("invocation");
    expect(callHost(due(25) + 1, now)).toBe("queue");
  });

  it("is the calls queue within a consumer's lifetime, less a minute for delivery and the report", () => {
    expect(WORKER_RUNNER_LIFETIME_MS).toBe(15 * 60_000);
    expect(callHost(due(600), now)).toBe("queue"); // the default tool_job_timeout_seconds
    expect(callHost(due(14 * 60), now)).toBe("queue");
    expect(callHost(due(14 * 60) + 1, now)).toBe("object");
  });

  it("counts the deadline from now, so a recovered call near its end goes to a nearer host", () => {
    expect(callHost(due(600), now + 580_000)).toBe("invocation");
  });

  it("falls back to the next host a build lacks, and to an object last", () => {
    expect(callHost(due(10), now, { invocation: false, queue: true })).toBe("queue");
    expect(callHost(due(10), now, { invocation: false, queue: false })).toBe("object");
    expect(callHost(due(600), now, { invocation: true, queue: false })).toBe("object");
  });
});

describe("a runner's lease", () => {
  it("lapses only after three renewals went missing", () => {
    expect(RUNNER_LAPSES_AFTER_MS).toBe(3 * RENEW_EVERY_MS);
    expect(runnerLapsed(now - RUNNER_LAPSES_AFTER_MS, now)).toBe(false);
    expect(runnerLapsed(now - RUNNER_LAPSES_AFTER_MS - 1, now)).toBe(true);
    expect(runnerLapsed(now - 1, now)).toBe(false);
  });

  it("counts a call with no renewal time as lapsed (claimed by a version that kept none)", () => {
    expect(runnerLapsed(null, now)).toBe(true);
  });
});
