import { describe, expect, it } from "vitest";
import { T0, job } from "./fixtures";
import type { JobRow } from "../../src/core/jobs/job";
import { extrasText } from "../../src/core/jobs/extras";

const NOW = T0 + 100_000;

/** A job running since `startedAt` ms after T0, created just before. */
const running = (id: string, startedAt: number, tool = "echo") =>
  job({ job_id: id, tool_name: tool, state: "running", created_at: T0 + startedAt - 10, started_at: T0 + startedAt });

/** A finished job that ran from `startedAt` to `completedAt` ms after T0. */
const finished = (
  id: string,
  startedAt: number,
  completedAt: number,
  state: JobRow["state"] = "success",
  tool = "echo",
) =>
  job({
    job_id: id,
    tool_name: tool,
    state,
    created_at: T0 + startedAt - 10,
    started_at: T0 + startedAt,
    completed_at: T0 + completedAt,
    result: state === "success" ? "ok" : null,
    error: state === "success" ? null : "failed",
  });

const HEADER = "parallel jobs:";
const RUNNING = "running:";
const READY = "ready to collect with `parallel` and `job_ids`:";
const FOOTER = 'call the `parallel` tool with `job_ids` to await/collect results or `action: "cancel"` to cancel.';

describe("extrasText", () => {
  it("returns null when there are no jobs", () => {
    expect(extrasText([], NOW)).toBeNull();
  });

  it("returns null when every job is collected, cancelled or timed out", () => {
    const jobs = [
      { ...finished("a", 0, 1_000), collected_at: T0 + 2_000 },
      finished("b", 0, 1_000, "cancelled"),
      finished("c", 0, 1_000, "timeout"),
    ];
    expect(extrasText(jobs, NOW)).toBeNull();
  });

  it("writes running and ready jobs in the exact line format", () => {
    const text = extrasText(
      [finished("echo-done", 1_000, 3_500, "success", "echo"), running("search-run", 87_600, "search")],
      NOW,
    );
    expect(text).toBe(
      [
        HEADER,
        RUNNING,
        "- search-run: search [running], running for 12.4s",
        READY,
        "- echo-done: echo [success], duration 2.5s",
        FOOTER,
      ].join("\n"),
    );
  });

  it("lists a pending job under running with 0.0s", () => {
    const text = extrasText([job({ job_id: "wait-p", tool_name: "wait" })], NOW);
    expect(text).toBe([HEADER, RUNNING, "- wait-p: wait [pending], running for 0.0s", FOOTER].join("\n"));
  });

  it("omits the running section when nothing is active", () => {
    const text = extrasText([finished("e", 0, 1_000, "error")], NOW);
    expect(text).toBe([HEADER, READY, "- e: echo [error], duration 1.0s", FOOTER].join("\n"));
  });

  it("omits the ready section when nothing is finished", () => {
    const text = extrasText([running("r", 99_000)], NOW);
    expect(text).toBe([HEADER, RUNNING, "- r: echo [running], running for 1.0s", FOOTER].join("\n"));
  });

  it("includes uncollected error jobs but leaves out cancelled, timed-out and collected ones", () => {
    const text = extrasText(
      [
        finished("err", 0, 1_000, "error"),
        finished("can", 0, 1_000, "cancelled"),
        finished("tmo", 0, 1_000, "timeout"),
        { ...finished("col", 0, 1_000), collected_at: T0 + 5_000 },
        finished("ok", 0, 2_000),
      ],
      NOW,
    )!;
    expect(text).toContain("- err: echo [error]");
    expect(text).toContain("- ok: echo [success]");
    expect(text).not.toContain("- can:");
    expect(text).not.toContain("- tmo:");
    expect(text).not.toContain("- col:");
    expect(text.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(2);
  });

  it("lists running jobs first, oldest first, whatever the input order", () => {
    const text = extrasText(
      [finished("f1", 0, 1_000), running("r2", 50_000), running("r1", 10_000), finished("f0", 0, 500)],
      NOW,
    )!;
    const ids = text
      .split("\n")
      .filter((l) => l.startsWith("- "))
      .map((l) => l.slice(2, l.indexOf(":")));
    expect(ids).toEqual(["r1", "r2", "f0", "f1"]);
  });

  it("lists finished jobs oldest first", () => {
    const text = extrasText(
      [finished("c", 3_000, 4_000), finished("a", 1_000, 2_000), finished("b", 2_000, 3_000)],
      NOW,
    )!;
    const ids = text
      .split("\n")
      .filter((l) => l.startsWith("- "))
      .map((l) => l.slice(2, l.indexOf(":")));
    expect(ids).toEqual(["a", "b", "c"]);
  });

  it("shows exactly 20 job lines without a remainder line", () => {
    const jobs = Array.from({ length: 20 }, (_, i) => running(`r${String(i).padStart(2, "0")}`, i * 100));
    const lines = extrasText(jobs, NOW)!.split("\n");
    expect(lines.filter((l) => l.startsWith("- "))).toHaveLength(20);
    expect(lines.some((l) => l.includes("more"))).toBe(false);
    expect(lines.at(-1)).toBe(FOOTER);
  });

  it("shows at most 20 job lines, then how many more there are", () => {
    const jobs = Array.from({ length: 25 }, (_, i) => running(`r${String(i).padStart(2, "0")}`, i * 100));
    const lines = extrasText(jobs, NOW)!.split("\n");
    const jobLines = lines.filter((l) => /^- r\d\d:/.test(l));
    expect(jobLines).toHaveLength(20);
    expect(jobLines.at(-1)).toMatch(/^- r19:/);
    expect(lines.at(-2)).toBe("- … and 5 more");
    expect(lines.at(-1)).toBe(FOOTER);
  });

  it("fills the 20 lines with running jobs first, then the oldest finished ones", () => {
    const runningJobs = Array.from({ length: 15 }, (_, i) =>
      running(`r${String(i).padStart(2, "0")}`, 50_000 + i * 100),
    );
    const finishedJobs = Array.from({ length: 10 }, (_, i) =>
      finished(`f${String(i).padStart(2, "0")}`, i * 1_000, i * 1_000 + 500),
    ).reverse();
    const lines = extrasText([...finishedJobs, ...runningJobs], NOW)!.split("\n");
    expect(lines.slice(0, 2)).toEqual([HEADER, RUNNING]);
    expect(lines[17]).toBe(READY);
    const finishedShown = lines.filter((l) => /^- f\d\d:/.test(l)).map((l) => l.slice(2, 5));
    expect(finishedShown).toEqual(["f00", "f01", "f02", "f03", "f04"]);
    expect(lines.filter((l) => /^- [rf]\d\d:/.test(l))).toHaveLength(20);
    expect(lines.at(-2)).toBe("- … and 5 more");
  });

  it("counts finished jobs that found no room in the remainder line", () => {
    const jobs = [
      ...Array.from({ length: 20 }, (_, i) => running(`r${String(i).padStart(2, "0")}`, i * 100)),
      finished("f", 0, 1),
    ];
    const lines = extrasText(jobs, NOW)!.split("\n");
    expect(lines).not.toContain("- f: echo [success], duration 0.0s");
    expect(lines.at(-2)).toBe("- … and 1 more");
  });
});
