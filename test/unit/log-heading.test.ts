/** A job's log row says a call was made only once it left (docs/api.md#log-rows). */
import { describe, expect, it } from "vitest";
import { logHeading } from "../../durable-objects/chat/storage/log-rows";
import { waitedOf } from "../../src/core/jobs/job";
import { job, T0 } from "./fixtures";

describe("logHeading", () => {
  it("says what a pending call waits for, never that it is used", () => {
    expect(logHeading(job({ tool_name: "send_postcard", waiting_for: "approval" }))).toBe(
      "Tool 'send_postcard' waits for approval",
    );
    expect(logHeading(job({ tool_name: "search", waiting_for: "flow" }))).toBe(
      "Tool 'search' waits for room under a flow rule",
    );
    expect(logHeading(job({ tool_name: "search", waiting_for: null }))).toBe("Tool 'search' has not started yet");
  });

  it("says `Using tool` once the call left, `was not used` for one that ended before, `Waiting` for wait", () => {
    expect(logHeading(job({ tool_name: "search", state: "running", started_at: T0 }))).toBe("Using tool 'search'");
    expect(logHeading(job({ tool_name: "search", state: "success", started_at: T0, completed_at: T0 + 5 }))).toBe(
      "Using tool 'search'",
    );
    expect(logHeading(job({ tool_name: "send_postcard", state: "error", completed_at: T0 + 5 }))).toBe(
      "Tool 'send_postcard' was not used",
    );
    expect(logHeading(job({ tool_name: "wait", waiting_for: "tier" }))).toBe("Waiting");
  });
});

describe("waitedOf", () => {
  it("lists each gate left in order, from arrival to leaving, and the one still held at", () => {
    const waits = JSON.stringify([
      ["approval", T0 + 68_000],
      ["flow", T0 + 70_000],
    ]);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(waitedOf(job({ created_at: T0, waits, waiting_for: null }))).toEqual([
      { for: "approval", from: iso(T0), to: iso(T0 + 68_000) },
      { for: "flow", from: iso(T0 + 68_000), to: iso(T0 + 70_000) },
    ]);
    expect(waitedOf(job({ created_at: T0, waits: null, waiting_for: "tier" }))).toEqual([
      { for: "tier", from: iso(T0), to: null },
    ]);
    expect(waitedOf(job({ created_at: T0, waits: null, waiting_for: null }))).toEqual([]);
  });
});
