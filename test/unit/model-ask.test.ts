import { describe, expect, it } from "vitest";
import { RUNNER_LAPSES_AFTER_MS } from "../../src/core/runner/lease";
import { askCheckAt, askLapsed, ASK_UNCLAIMED_MS, holdsAsk, type ModelAsk } from "../../src/core/runner/model-ask";

const sent = 1_000_000;
const ask = (renewed_at: number | null = null): ModelAsk => ({
  turn_id: "job-1",
  lease: "l1",
  sent_at: sent,
  renewed_at,
});

describe("a model request's ask", () => {
  it("not claimed in time is sent again, as a batch's queue copy would be", () => {
    expect(askCheckAt(ask())).toBe(sent + ASK_UNCLAIMED_MS);
    expect(askLapsed(ask(), sent + ASK_UNCLAIMED_MS - 1)).toBe(false);
    expect(askLapsed(ask(), sent + ASK_UNCLAIMED_MS)).toBe(true); // the timer set for the check finds it lapsed
  });

  it("once claimed lapses only when its runner stops renewing, however long the model thinks", () => {
    const renewed = sent + 120_000;
    expect(askCheckAt(ask(renewed))).toBe(renewed + RUNNER_LAPSES_AFTER_MS);
    expect(askLapsed(ask(renewed), sent + ASK_UNCLAIMED_MS + 1)).toBe(false);
    expect(askLapsed(ask(renewed), renewed + RUNNER_LAPSES_AFTER_MS - 1)).toBe(false);
    expect(askLapsed(ask(renewed), renewed + RUNNER_LAPSES_AFTER_MS)).toBe(true);
  });

  it("is held by its own lease and turn only: a reply under an older lease is stale", () => {
    expect(holdsAsk(ask(), "job-1", "l1")).toBe(true);
    expect(holdsAsk(ask(), "job-1", "l0")).toBe(false);
    expect(holdsAsk(ask(), "job-2", "l1")).toBe(false);
    expect(holdsAsk(undefined, "job-1", "l1")).toBe(false);
  });
});
