import { describe, expect, it } from "vitest";
import { fitsWorkerRunner, RENEW_EVERY_MS, RUNNER_LAPSES_AFTER_MS, runnerLapsed, WAIT_UNTIL_GRACE_MS, WORKER_RUNNER_LIFETIME_MS, workerRunnerFor } from "../../src/runner/lease";

const now = 1_000_000;
const tool = (seconds: number, tool_name = "search") => ({ kind: "tool" as const, tool_name, deadline_at: now + seconds * 1000 });

describe("which calls wait in a Worker runner", () => {
  it("takes a tool call whose deadline falls within a consumer's lifetime, less a minute for delivery and the report", () => {
    expect(fitsWorkerRunner(tool(600), now)).toBe(true); // the default tool_job_timeout_seconds
    expect(fitsWorkerRunner(tool(14 * 60), now)).toBe(true);
    expect(fitsWorkerRunner(tool(14 * 60 + 1), now)).toBe(false);
    expect(WORKER_RUNNER_LIFETIME_MS).toBe(15 * 60_000);
  });

  it("leaves the built-in wait (the alarm ends it) and a subordinate's hand-over (an RPC to its child) to the chat", () => {
    expect(fitsWorkerRunner(tool(10, "wait"), now)).toBe(false);
    expect(fitsWorkerRunner({ ...tool(10), kind: "subordinate" }, now)).toBe(false);
  });
});

describe("which Worker runner", () => {
  it("is one the chat starts itself when the deadline falls within waitUntil's grace, less 5 s for the hand-over and the report", () => {
    expect(WAIT_UNTIL_GRACE_MS).toBe(30_000);
    expect(workerRunnerFor(tool(1), now)).toBe("direct");
    expect(workerRunnerFor(tool(25), now)).toBe("direct");
    expect(workerRunnerFor({ ...tool(25), deadline_at: now + 25_001 }, now)).toBe("queued");
    expect(workerRunnerFor(tool(600), now)).toBe("queued");
  });

  it("counts the deadline from now, so a recovered call near its end goes direct", () => {
    expect(workerRunnerFor(tool(600), now + 580_000)).toBe("direct");
  });

  it("is none for a call the objects hold", () => {
    expect(workerRunnerFor(tool(14 * 60 + 1), now)).toBeUndefined();
    expect(workerRunnerFor(tool(10, "wait"), now)).toBeUndefined();
    expect(workerRunnerFor({ ...tool(10), kind: "subordinate" }, now)).toBeUndefined();
  });
});

describe("a Worker runner's lease", () => {
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
