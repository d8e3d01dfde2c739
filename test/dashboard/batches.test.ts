/**
 * The dashboard's batches and timelines (src/edge/dashboard/assets/batches.js), in Node: the module is
 * plain browser JavaScript with no DOM, loaded here as the page loads it.
 */
import { describe, expect, it } from "vitest";

interface Job {
  job_id: string;
  batch_id: string;
  index: number;
  tool_name: string;
  state: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}
interface Batch {
  batchId: string;
  jobs: Job[];
  acceptedAt: number;
  endedAt: number | null;
  running: boolean;
  wallMs: number;
  sumMs: number;
  states: [string, number][];
}
interface Bar {
  job: Job;
  waits: { reason: string | null; ms: number; from: number; to: number }[];
  run: { from: number; to: number } | null;
}
interface Batches {
  groupBatches(jobs: Job[], now?: number): Batch[];
  timelineBars(batch: Batch, now?: number): Bar[];
  batchSummary(batch: Batch): string;
  decisionText(job: { approval?: unknown }, clock: (ms: number) => string): string | null;
  formatWait(ms: number): string;
  formatMs(ms: number): string;
  filterJobs(jobs: Job[], filter: { state?: string; tool?: string }): Job[];
  waitingText(
    job: Partial<Job> & { waiting_for?: string | null; flow?: { rule: string; key?: string } | null },
  ): string | null;
  failureText(job: { error_type?: string | null; retryable?: boolean | null }): string | null;
  rerunOffer(batch: {
    running: boolean;
    jobs: { error_type?: string | null; retryable?: boolean | null }[];
  }): { safe: number; failed: number } | null;
  attemptsText(job: { attempt: number }): string | null;
}

// The worker bundles this file as text; Node runs it as the module the page loads.
const modulePath = new URL("../../src/edge/dashboard/assets/batches.js", import.meta.url).href;
const b = (await import(modulePath)) as Batches;

const T0 = Date.parse("2026-12-02T10:00:00.000Z");
const iso = (ms: number | null) => (ms === null ? null : new Date(T0 + ms).toISOString());
function job(
  batch: string,
  index: number,
  state: string,
  created: number,
  started: number | null,
  ended: number | null,
  tool = "search",
): Job {
  return {
    job_id: `${batch}-${index}`,
    batch_id: batch,
    index,
    tool_name: tool,
    state,
    created_at: iso(created)!,
    started_at: iso(started),
    completed_at: iso(ended),
  };
}

// An older batch of 4 run side by side (400, 1200, 800 and 1600 ms), given out of call order,
// and a newer one still running.
const older = [
  job("b1", 2, "success", 0, 20, 820),
  job("b1", 0, "success", 0, 10, 410),
  job("b1", 3, "error", 0, 30, 1630, "fetch"),
  job("b1", 1, "success", 0, 15, 1215),
];
const newer = [job("b2", 0, "running", 5_000, 5_010, null), job("b2", 1, "pending", 5_000, null, null)];

describe("a chat's batches", () => {
  it("are grouped newest first, with their jobs in call order", () => {
    const batches = b.groupBatches([...older, ...newer], T0 + 6_000);
    expect(batches.map((x) => x.batchId)).toEqual(["b2", "b1"]);
    expect(batches[1]!.jobs.map((j) => j.index)).toEqual([0, 1, 2, 3]);
    expect(batches[0]!.running).toBe(true);
    expect(batches[1]!.states).toEqual([
      ["success", 3],
      ["error", 1],
    ]);
  });

  it("report their wall time against the sum of their jobs' run times", () => {
    const [batch] = b.groupBatches(older, T0 + 10_000);
    expect(batch!.wallMs).toBe(1630);
    expect(batch!.sumMs).toBe(400 + 1200 + 800 + 1600);
    expect(b.batchSummary(batch!)).toBe(
      "3 success, 1 error · wall 1.6 s · sum 4.0 s · 2.5× faster than one after another",
    );
  });

  it("claim no speed-up for a batch of one job", () => {
    const [batch] = b.groupBatches([job("b3", 0, "success", 0, 5, 905)], T0 + 2_000);
    expect(b.batchSummary(batch!)).toBe("1 success · wall 905 ms · sum 900 ms");
  });

  it("count a running batch up to now, and a job never claimed as no run time", () => {
    const [batch] = b.groupBatches(newer, T0 + 6_000);
    expect(batch!.endedAt).toBeNull();
    expect(batch!.wallMs).toBe(1_000);
    expect(batch!.sumMs).toBe(990);
  });
});

describe("a batch's timeline", () => {
  it("draws each job from its acceptance to its claim, then to its end, on one axis", () => {
    const [batch] = b.groupBatches(older, T0 + 10_000);
    const bars = b.timelineBars(batch!, T0 + 10_000);
    expect(bars.map((x) => x.job.index)).toEqual([0, 1, 2, 3]);
    const pct = (ms: number) => (ms / 1630) * 100;
    // A job that went straight on waited only for its hand-off to a runner.
    expect(bars[0]!.waits).toEqual([{ reason: null, ms: 10, from: 0, to: pct(10) }]);
    expect(bars[0]!.run!.from).toBeCloseTo(pct(10));
    expect(bars[0]!.run!.to).toBeCloseTo(pct(410));
    expect(bars[3]!.run!.to).toBe(100); // the last to end closes the axis
    // Lengths in the same proportions as the run times: 400, 1200, 800, 1600 ms.
    const lengths = bars.map((x) => x.run!.to - x.run!.from);
    expect(lengths.map((l) => l / lengths[0]!)).toEqual([1, 3, 2, 4].map((r) => expect.closeTo(r, 5)));
  });

  it("runs a running job to the axis' end and shows a job never claimed waiting", () => {
    const now = T0 + 6_000;
    const [batch] = b.groupBatches(newer, now);
    const [running, pending] = b.timelineBars(batch!, now);
    expect(running!.run).toEqual({ from: 1, to: 100 });
    expect(pending!.run).toBeNull();
    expect(pending!.waits).toEqual([{ reason: null, ms: 1000, from: 0, to: 100 }]);
  });

  it("draws a bar per gate a job waited at, each with what it waited for, then the hand-off", () => {
    const held = {
      ...job("b3", 0, "success", 0, 70_000, 70_050, "send_postcard"),
      waited: [
        { for: "approval", from: iso(0), to: iso(68_000) },
        { for: "flow", from: iso(68_000), to: iso(69_900) },
      ],
    };
    const [batch] = b.groupBatches([held], T0 + 80_000);
    const [bar] = b.timelineBars(batch!, T0 + 80_000);
    expect(bar!.waits.map((w) => [w.reason, w.ms])).toEqual([
      ["approval", 68_000],
      ["flow", 1_900],
      [null, 100],
    ]);
    expect(bar!.waits[0]!.from).toBe(0);
    expect(bar!.waits[2]!.to).toBeCloseTo((70_000 / 70_050) * 100);
  });
});

describe("a batch whose time went to waiting", () => {
  it("says what it waited for instead of a speed-up below 1×", () => {
    const held = {
      ...job("b4", 0, "success", 0, 69_000, 69_055, "send_postcard"),
      waited: [{ for: "approval", from: iso(0), to: iso(68_400) }],
    };
    const quick = job("b4", 1, "success", 0, 10, 60, "search");
    const [batch] = b.groupBatches([held, quick], T0 + 80_000);
    const summary = b.batchSummary(batch!);
    expect(summary).toBe("2 success · wall 1 min 9 s · sum 105 ms · waited 68 s for approval");
    expect(summary).not.toContain("faster");
    // A batch that ran side by side still says how much faster it was.
    const [fast] = b.groupBatches(
      [job("b5", 0, "success", 0, 5, 1005), job("b5", 1, "success", 0, 5, 1005)],
      T0 + 5000,
    );
    expect(b.batchSummary(fast!)).toContain("2.0× faster than one after another");
  });

  it("words a wait to the second once it is long, and a decision with who, when and why", () => {
    expect([b.formatWait(850), b.formatWait(4_240), b.formatWait(68_400), b.formatWait(68_600)]).toEqual([
      "850 ms",
      "4.2 s",
      "68 s",
      "69 s",
    ]);
    const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
    const decided = (status: string, by: string | null, reason: string | null) => ({
      approval: { status, expires_at: iso(600_000), decided_at: iso(68_000), by, reason },
    });
    expect(b.decisionText(decided("approved", "ana", "looks fine"), clock)).toBe(
      "approved by ana at 10:01:08: looks fine",
    );
    expect(b.decisionText(decided("denied", "ops", null), clock)).toBe("denied by ops at 10:01:08");
    expect(
      b.decisionText(
        { approval: { status: "expired", expires_at: iso(600_000), decided_at: null, by: null, reason: null } },
        clock,
      ),
    ).toBe("expired at 10:10:00, not made");
    expect(b.decisionText({ approval: null }, clock)).toBeNull();
  });
});

describe("the job filters", () => {
  it("keep jobs by state and by tool", () => {
    expect(b.filterJobs(older, { state: "error" }).map((j) => j.job_id)).toEqual(["b1-3"]);
    expect(b.filterJobs(older, { tool: "search" })).toHaveLength(3);
    expect(b.filterJobs(older, { state: "success", tool: "fetch" })).toEqual([]);
    expect(b.filterJobs(older, {})).toHaveLength(4);
  });
});

describe("durations", () => {
  it("read as a person reads them", () => {
    expect([b.formatMs(850), b.formatMs(1234), b.formatMs(125_000)]).toEqual(["850 ms", "1.2 s", "2 min 5 s"]);
  });
});

describe("a pending job's card", () => {
  it("says in words why it has not started, and nothing once it has", () => {
    expect(b.waitingText({ state: "pending", waiting_for: "tier" })).toBe("waiting for its turn");
    expect(b.waitingText({ state: "pending", waiting_for: "subagent_slot" })).toBe("waiting for a subagent slot");
    expect(b.waitingText({ state: "pending", waiting_for: "flow", flow: { rule: "search-api" } })).toBe(
      "waiting for flow slot: search-api",
    );
    expect(b.waitingText({ state: "pending", waiting_for: "flow", flow: { rule: "per-user", key: "u7" } })).toBe(
      "waiting for flow slot: per-user (u7)",
    );
    expect(b.waitingText({ state: "pending", waiting_for: null })).toBeNull();
    expect(b.waitingText({ state: "running", waiting_for: "tier" })).toBeNull();
  });
});

describe("an ended job's card", () => {
  it("says why it did not succeed, and whether it is safe to run again", () => {
    expect(b.failureText({ error_type: "http_status", retryable: true })).toBe("http_status · safe to run again");
    expect(b.failureText({ error_type: "outcome_unknown", retryable: false })).toBe(
      "outcome_unknown · not to be run again as it is",
    );
    expect(b.failureText({ error_type: null, retryable: null })).toBeNull();
  });
});

describe("a batch's rerun button", () => {
  it("offers the failures safe to run again once the batch has ended, and nothing while it runs or after a success", () => {
    const ok = { error_type: null, retryable: null };
    const safe = { error_type: "timeout", retryable: true };
    const unknown = { error_type: "outcome_unknown", retryable: false };
    expect(b.rerunOffer({ running: false, jobs: [ok, safe, unknown] })).toEqual({ safe: 1, failed: 2 });
    expect(b.rerunOffer({ running: false, jobs: [ok, unknown] })).toEqual({ safe: 0, failed: 1 });
    expect(b.rerunOffer({ running: true, jobs: [safe] })).toBeNull();
    expect(b.rerunOffer({ running: false, jobs: [ok] })).toBeNull();
  });
});

describe("a job's attempts", () => {
  it("say how often its call was sent, and nothing before the first", () => {
    expect([b.attemptsText({ attempt: 0 }), b.attemptsText({ attempt: 1 }), b.attemptsText({ attempt: 3 })]).toEqual([
      null,
      "1 attempt",
      "3 attempts",
    ]);
  });
});
