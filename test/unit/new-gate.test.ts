/**
 * A new reason to wait is one entry in the order of the gates (src/core/gates/order.ts) plus the file that
 * opens it: admission, the rows' timers and the one release path name no gate of their own. This
 * file shows it with a "not before T" gate of its own (T: the batch's `metadata.not_before`), put in
 * the order here and nowhere else, on a chat's real tables: admission puts a call at it in its place,
 * its timer is due at T, and `letGo` moves the call on in order, past it once T has come.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newJobRows } from "../../durable-objects/chat/jobs/admission";
import { insertBatch } from "../../durable-objects/chat/jobs/batch-rows";
import { letGo } from "../../durable-objects/chat/gates/gate";
import { ChatStore } from "../../durable-objects/chat/storage/chat-store";
import type { GateJob, GateRule } from "../../src/core/gates/order";
import { GATES, type WaitReason } from "../../src/core/jobs/job";
import type { JobSpec } from "../../src/core/jobs/job-spec";
import { chatObject } from "../helpers";
import { T0 } from "./fixtures";

/**
 * The whole gate, as far as admission and release are concerned. (What opens it at T, a file in the chat's
 * gates/ room, is played here by calling `letGo`.)
 */
const notBeforeOf = (job: GateJob) =>
  job.metadata ? (JSON.parse(job.metadata) as { not_before?: number }).not_before : undefined;
const notBefore: GateRule = {
  reason: "not_before",
  clock: "from_release",
  order: "call",
  applies: (job, now) => (notBeforeOf(job) ?? -Infinity) > now,
  due: (job) => notBeforeOf(job)!,
};
const NOT_BEFORE = "not_before" as WaitReason; // the chat's types know the wire's reasons only; the row takes any

const T = T0 + 60_000;
let takeOut: () => void;
beforeAll(() => {
  takeOut = GATES.add(notBefore, { before: "flow" });
});
afterAll(() => takeOut());

const call = (index: number, tool_name: string, read_only: boolean): JobSpec =>
  ({
    index,
    job_id: `${tool_name}-${index}`,
    tool_name,
    tool_args: "{}",
    kind: "tool",
    read_only,
    timeout_seconds: 60,
  }) as JobSpec;

/**
 * A tiered batch of three calls, admitted at `now`: a read, a write (its tier waits), and a read under an
 * approval rule; the batch has a budget.
 */
const admit = (now: number) =>
  newJobRows([call(0, "search", true), call(1, "send", false), call(2, "pay", true)], now, {
    chat_id: "chat-1",
    tiered: true,
    plans: new Map(),
    metadata: JSON.stringify({ not_before: T }),
    agent: "default",
    approvals: [{ tools: ["pay"], timeout_seconds: 600 }],
    budget: { limits: { tool_calls: 10 } },
  });

function inChat<R>(name: string, test: (store: ChatStore) => R): Promise<R> {
  return runInDurableObject(chatObject(`new-gate-${name}`), (_i, state) => {
    const store = new ChatStore(state, () => env as Env);
    store.ensure();
    return test(store);
  });
}

const gateTimers = (store: ChatStore) =>
  store.sql
    .exec<{ ref: string; at: number }>(`SELECT ref, at FROM timers WHERE kind = 'gate' ORDER BY ref`)
    .toArray()
    .map((t) => ({ ...t }));

describe("a gate put in the order, and nowhere else", () => {
  it("is where admission puts a call it applies to, in its place: after the tier and an approval, before the budget", () => {
    const batch = admit(T0);
    expect(batch.jobs.map((j) => [j.tool_name, j.waiting_for])).toEqual([
      ["search", "not_before"],
      ["send", "tier"],
      ["pay", "approval"],
    ]);
    // Once T has come, it is passed by: the budget is next.
    expect(admit(T).jobs.map((j) => j.waiting_for)).toEqual(["budget", "tier", "approval"]);
  });

  it("has its timer set for T when a batch's call waits there, and its calls moved on in order by the one release path", () =>
    inChat("in-order", (store) => {
      const batch = admit(T0);
      expect(insertBatch(store, batch, new Map(), T0)).toEqual([]);
      expect(gateTimers(store)).toEqual([{ ref: "not_before", at: T }]);
      const row = (id: string) => store.jobs.get(id)!;

      // A person approves `pay` before T: it goes on to wait for T, its deadline from the approval.
      const decided = JSON.stringify({
        ...JSON.parse(row("pay-2").approval!),
        decision: "approve",
        decided_at: T0 + 5_000,
      });
      expect(letGo(store, { ...row("pay-2"), approval: decided }, T0 + 5_000)).toBe(false);
      expect(row("pay-2")).toMatchObject({ waiting_for: "not_before", deadline_at: T0 + 65_000 });
      expect(store.jobs.waitingAt(NOT_BEFORE).map((j) => j.job_id)).toEqual(["search-0", "pay-2"]);

      // At T the gate lets its calls go: each goes on to the batch's budget, which is asked at once.
      for (const waiting of store.jobs.waitingAt(NOT_BEFORE)) expect(letGo(store, waiting, T)).toBe(false);
      expect(store.jobs.waitingAt("budget").map((j) => [j.job_id, j.deadline_at])).toEqual([
        ["search-0", T + 60_000],
        ["pay-2", T + 60_000],
      ]);
      expect(gateTimers(store)).toContainEqual({ ref: "budget", at: T });

      // The tier's turn comes after T: the write is not held for T again, and goes to the budget.
      expect(letGo(store, row("send-1"), T + 1_000)).toBe(false);
      expect(row("send-1").waiting_for).toBe("budget");

      // The budget is the last gate: from there a call starts.
      expect(letGo(store, row("search-0"), T + 2_000)).toBe(true);
      expect(row("search-0").waiting_for).toBeNull();
    }));
});

describe("taken out of the order", () => {
  it("is no gate any more: a call it would have held waits at the next", () => {
    takeOut();
    try {
      expect(GATES.reasons).not.toContain("not_before");
      expect(admit(T0).jobs.map((j) => j.waiting_for)).toEqual(["budget", "tier", "approval"]);
    } finally {
      takeOut = GATES.add(notBefore, { before: "flow" });
    }
  });
});
