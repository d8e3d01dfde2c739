/**
 * The gates a pending job waits at (docs/architecture.md#gates), on a chat's real tables: when each
 * says its jobs may go after a job ends, what it lets go, and the one release path they share.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { afterJobEnded } from "../../durable-objects/chat/gates";
import { letGo } from "../../durable-objects/chat/gates/gate";
import { subagentSlotGate } from "../../durable-objects/chat/gates/subagent-slot";
import { approvalGate } from "../../durable-objects/chat/gates/approval";
import type { JobApproval } from "../../src/core/approvals/approval";
import { nextOfTier, tierGate } from "../../durable-objects/chat/gates/tier";
import { ChatStore } from "../../durable-objects/chat/storage/chat-store";
import type { NewJob } from "../../durable-objects/chat/storage/job-columns";
import type { JobRow } from "../../src/core/jobs/job";
import { chatObject } from "../helpers";
import { T0 } from "./fixtures";

interface Rig {
  store: ChatStore;
  add(jobId: string, over?: Partial<NewJob>): void;
  row(jobId: string): JobRow;
  end(jobId: string): { job: JobRow; active: ReturnType<ChatStore["jobs"]["activeAround"]> };
  timers(): { kind: string; ref: string; at: number }[];
}

function rig<T>(name: string, test: (r: Rig) => T): Promise<T> {
  return runInDurableObject(chatObject(`gates-${name}`), (_i, state) => {
    const store = new ChatStore(state, () => env as Env);
    store.ensure();
    return test({
      store,
      add(jobId, over = {}) {
        store.jobs.insert({
          job_id: jobId,
          chat_id: "chat-1",
          batch_id: "batch-1",
          idx: 0,
          tool_name: "send",
          tool_call_id: null,
          tool_args: "{}",
          kind: "tool",
          read_only: false,
          timeout_seconds: 60,
          created_at: T0,
          deadline_at: T0 + 60_000,
          context_id: null,
          spec: null,
          waiting_for: null,
          metadata: null,
          flow: null,
          approval: null,
          budget: null,
          log_id: `log-${jobId}`,
          log_type: "tool",
          ...over,
        });
      },
      row: (jobId) => store.jobs.get(jobId)!,
      end(jobId) {
        const job = store.jobs.finish(jobId, { state: "success", result: "ok" }, T0 + 1_000)!;
        return { job, active: store.jobs.activeAround(job.batch_id) };
      },
      timers: () =>
        store.sql
          .exec<{ kind: string; ref: string; at: number }>(`SELECT kind, ref, at FROM timers ORDER BY kind, ref`)
          .toArray(),
    });
  });
}

describe("the tier gate", () => {
  it("opens for a batch once its last call not waiting for the tier ends, and only then", () =>
    rig("tier-after-end", (r) => {
      r.add("read-1", { idx: 0, read_only: true });
      r.add("read-2", { idx: 1, read_only: true });
      r.add("send-1", { idx: 2, waiting_for: "tier" });
      const first = r.end("read-1");
      expect(tierGate.afterEnd(r.store, first.job, first.active)).toEqual([]); // read-2 still runs
      const second = r.end("read-2");
      expect(tierGate.afterEnd(r.store, second.job, second.active)).toEqual(["batch-1"]);
    }));

  it("does not open when the job that ended was itself waiting for the tier (a cancel)", () =>
    rig("tier-cancelled-waiter", (r) => {
      r.add("send-1", { idx: 0, waiting_for: "tier" });
      r.add("send-2", { idx: 1, waiting_for: "tier" });
      const ended = r.end("send-1");
      expect(tierGate.afterEnd(r.store, ended.job, ended.active)).toEqual([]);
    }));

  it("lets go of the batch's next call in call order, with its deadline from now", () =>
    rig("tier-next", (r) => {
      r.add("send-b", { idx: 2, waiting_for: "tier" });
      r.add("send-a", { idx: 1, waiting_for: "tier" });
      r.add("other", { idx: 0, batch_id: "batch-2", waiting_for: "tier" });
      const now = T0 + 5_000;
      expect(nextOfTier(r.store, "batch-1", now)).toBe("send-a");
      expect(r.row("send-a")).toMatchObject({ waiting_for: null, deadline_at: now + 60_000 });
      expect(r.row("send-b")).toMatchObject({ waiting_for: "tier", state: "pending" });
      expect(r.row("other")).toMatchObject({ waiting_for: "tier" });
      // While send-a is active, the batch's next one waits.
      expect(nextOfTier(r.store, "batch-1", now)).toBeUndefined();
    }));
});

describe("the subagent slot gate", () => {
  const sub = (over: Partial<NewJob>): Partial<NewJob> => ({
    kind: "subordinate",
    tool_name: "spawn_task",
    read_only: false,
    ...over,
  });

  it("opens when a running subordinate ends and some wait, not for a tool or a waiting one", () =>
    rig("slot-after-end", (r) => {
      r.add("sub-run", sub({ idx: 0 }));
      r.add("sub-wait-1", sub({ idx: 1, waiting_for: "subagent_slot" }));
      r.add("sub-wait-2", sub({ idx: 2, waiting_for: "subagent_slot" }));
      r.add("tool-1", { idx: 3, read_only: true });
      const tool = r.end("tool-1");
      expect(subagentSlotGate.afterEnd(r.store, tool.job, tool.active)).toEqual([]);
      const waiting = r.end("sub-wait-1"); // a cancelled waiter frees no slot
      expect(subagentSlotGate.afterEnd(r.store, waiting.job, waiting.active)).toEqual([]);
      const running = r.end("sub-run");
      expect(subagentSlotGate.afterEnd(r.store, running.job, running.active)).toEqual([""]);
    }));

  it("keeps its waiting jobs in arrival order, each with its place in the queue", () =>
    rig("slot-order", (r) => {
      r.add("sub-a", sub({ idx: 0, batch_id: "batch-1", waiting_for: "subagent_slot" }));
      r.add("sub-b", sub({ idx: 0, batch_id: "batch-0", waiting_for: "subagent_slot" }));
      r.add("sub-c", sub({ idx: 1, batch_id: "batch-0", waiting_for: "subagent_slot" }));
      const waiting = r.store.jobs.waitingAt("subagent_slot");
      expect(waiting.map((j) => [j.job_id, j.queue_position])).toEqual([
        ["sub-a", 1],
        ["sub-b", 2],
        ["sub-c", 3],
      ]);
      expect(r.store.jobs.waitingAt("tier")).toEqual([]);
    }));
});

describe("the approval gate", () => {
  const asked = (over: Partial<JobApproval> = {}) =>
    JSON.stringify({ agent: "default", timeout_seconds: 600, expires_at: T0 + 600_000, ...over });

  it("takes a call its tier lets go to a person's approval while undecided, and on to start once approved", () =>
    rig("approval-after-tier", (r) => {
      r.add("send-1", { waiting_for: "tier", approval: asked() });
      expect(letGo(r.store, r.row("send-1"), T0 + 1_000)).toBe(false);
      expect(r.row("send-1")).toMatchObject({ waiting_for: "approval", state: "pending" });
      r.add("send-2", { waiting_for: "tier", approval: asked({ decision: "approve", decided_at: T0 }) });
      expect(letGo(r.store, r.row("send-2"), T0 + 1_000)).toBe(true);
      expect(r.row("send-2")).toMatchObject({ waiting_for: null });
    }));

  it("sends an approved call under a flow rule on to the flow gate, with its clock from the approval", () =>
    rig("approval-then-flow", (r) => {
      const flow = JSON.stringify({
        holds: [{ rule: "r", key: "" }],
        rules: { r: { name: "r", concurrency: 1, on_limit: "queue", max_queued: 10 } },
      });
      r.add("send-1", {
        waiting_for: "approval",
        flow,
        approval: asked({ decision: "approve", decided_at: T0 + 5_000 }),
      });
      expect(letGo(r.store, r.row("send-1"), T0 + 5_000)).toBe(false);
      expect(r.row("send-1")).toMatchObject({ waiting_for: "flow", deadline_at: T0 + 65_000 });
      expect(r.timers()).toContainEqual({ kind: "gate", ref: "flow", at: T0 + 5_000 });
    }));

  it("owes the tenant's list the news when a call under an approval rule ends, and drops its deadline timer", () =>
    rig("approval-after-end", (r) => {
      r.add("send-1", { waiting_for: "approval", approval: asked() });
      r.add("plain", { idx: 1, read_only: true });
      r.store.timers.set("gate", "approval:expire:send-1", T0 + 600_000);
      const plain = r.end("plain");
      expect(approvalGate.afterEnd(r.store, plain.job, plain.active)).toEqual([]);
      const ended = r.end("send-1");
      expect(approvalGate.afterEnd(r.store, ended.job, ended.active)).toEqual(["report"]);
      expect(r.store.jobs.approvalsToReport(10).map((j) => j.job_id)).toEqual(["send-1"]);
      expect(r.timers().filter((t) => t.ref.startsWith("approval:"))).toEqual([]);
    }));
});

describe("the one release path", () => {
  it("starts the clock of a job whose gate held it back, gives it its tree slot, and watches its dispatch", () =>
    rig("let-go", (r) => {
      r.add("sub-1", { kind: "subordinate", waiting_for: "subagent_slot" });
      const now = T0 + 90_000;
      letGo(r.store, r.row("sub-1"), now, "sub-1");
      expect(r.row("sub-1")).toMatchObject({
        waiting_for: null,
        wait_seq: null,
        tree_slot: "sub-1",
        deadline_at: now + 60_000,
        queue_position: null,
      });
      expect(r.timers()).toEqual([
        { kind: "deadline", ref: "", at: now + 60_000 },
        { kind: "dispatch", ref: "", at: now + 15_000 },
      ]);
    }));

  it("lets go of nothing that has ended meanwhile", () =>
    rig("let-go-ended", (r) => {
      r.add("send-1", { waiting_for: "tier" });
      const waiting = r.row("send-1");
      r.end("send-1");
      letGo(r.store, waiting, T0 + 2_000);
      expect(r.row("send-1")).toMatchObject({ state: "success", waiting_for: "tier" });
    }));
});

describe("after a job ends", () => {
  it("sets each gate's timer that may open, due now, by reason and scope", () =>
    rig("after-end", (r) => {
      r.add("sub-run", { kind: "subordinate", idx: 0, read_only: false });
      r.add("send-1", { idx: 1, waiting_for: "tier" });
      r.add("sub-wait", { kind: "subordinate", idx: 0, batch_id: "batch-2", waiting_for: "subagent_slot" });
      const { job, active } = r.end("sub-run");
      afterJobEnded(r.store, job, active, T0 + 1_000);
      expect(r.timers()).toEqual([
        { kind: "gate", ref: "subagent_slot", at: T0 + 1_000 },
        { kind: "gate", ref: "tier:batch-1", at: T0 + 1_000 },
      ]);
    }));
});
