/**
 * The job state machine (docs/api.md#jobs-and-their-lifecycle) on a chat's real tables: claim, completion,
 * cancel, deadline, `wait`, and the hooks each transition calls exactly once.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  JobMachine,
  UNDELIVERABLE_AFTER_MS,
  UNDELIVERABLE_ERROR,
  type MachineHooks,
} from "../../durable-objects/chat/jobs/job-machine";
import { Waiters, type WaitingSocket } from "../../durable-objects/chat/jobs/waiters";
import { JOBS_ENDED } from "../../src/core/jobs/messages";
import { ChatStore } from "../../durable-objects/chat/storage/chat-store";
import type { Finish, NewJob } from "../../durable-objects/chat/storage/job-columns";
import type { JobStore } from "../../durable-objects/chat/storage/job-store";
import type { LogStore } from "../../durable-objects/chat/storage/log-rows";
import type { Timers } from "../../durable-objects/chat/storage/timers";
import { CANCELLED_ERROR, deadlineError } from "../../src/core/jobs/job";
import { chatObject } from "../helpers";
import { T0 } from "./fixtures";

const DEADLINE = T0 + 600_000;
const BIG = 1_000_000;

interface Rig {
  sql: SqlStorage;
  jobs: JobStore;
  log: LogStore;
  timers: Timers;
  waiters: Waiters;
  /** The sockets of requests waiting on this chat's jobs. */
  sockets: WaitingSocket[];
  machine: JobMachine;
  /** Every hook call, in order: `hook job_id state-of-the-row-it-got`. */
  hooks: string[];
  add(jobId: string, over?: Partial<NewJob>): void;
  row(jobId: string): Record<string, unknown>;
  timersOf(jobId: string): { kind: string; at: number }[];
}

/** A fresh chat's tables, the machine over them, and hooks that only record. */
function rig<T>(name: string, test: (r: Rig) => T | Promise<T>): Promise<T> {
  return runInDurableObject(chatObject(`job-machine-${name}`), (_i, state) => {
    const store = new ChatStore(state, () => env as Env);
    store.ensure();
    const { sql, jobs, log, timers } = store;
    const sockets: WaitingSocket[] = [];
    const waiters = new Waiters(
      () => sockets,
      (ids) => jobs.stillActive(ids),
    );
    const calls: string[] = [];
    const hooks: MachineHooks = {
      stopWork: (job) => calls.push(`stopWork ${job.job_id} ${job.state}`),
      claimed: (job, now) => calls.push(`claimed ${job.job_id} ${now - T0}`),
      ended: (job, now) => calls.push(`ended ${job.job_id} ${job.state} ${now - T0}`),
    };
    return test({
      sql,
      jobs,
      log,
      timers,
      waiters,
      sockets,
      machine: new JobMachine(store, waiters, hooks),
      hooks: calls,
      add(jobId, over = {}) {
        const job: NewJob = {
          job_id: jobId,
          chat_id: "chat-1",
          batch_id: "batch-1",
          idx: 0,
          tool_name: "echo",
          tool_call_id: null,
          tool_args: "{}",
          kind: "tool",
          read_only: true,
          timeout_seconds: 600,
          created_at: T0,
          deadline_at: DEADLINE,
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
        };
        jobs.insert(job);
      },
      row: (jobId) => sql.exec(`SELECT * FROM jobs WHERE job_id = ?`, jobId).one(),
      timersOf: (jobId) =>
        sql
          .exec<{ kind: string; at: number }>(`SELECT kind, at FROM timers WHERE ref = ? ORDER BY kind`, jobId)
          .toArray(),
    });
  });
}

const logContent = (r: Rig, jobId: string) => r.log.all().find((row) => row.job_id === jobId)!.content;

describe("claim", () => {
  it("moves a pending job to running under a new lease, and tells the claimed hook once", () =>
    rig("claim", (r) => {
      r.add("echo-1", { tool_args: '{"q":1}' });
      const claim = r.machine.claim("echo-1", 1, T0 + 5);
      expect(claim).toEqual({
        status: "claimed",
        lease: expect.stringMatching(/^[0-9a-f-]{36}$/),
        attempt: 1,
        tool_name: "echo",
        tool_args: '{"q":1}',
        read_only: true,
        deadline_at: DEADLINE,
        kind: "tool",
        context_id: null,
        spec: null,
      });
      expect(r.row("echo-1")).toMatchObject({
        state: "running",
        started_at: T0 + 5,
        attempt: 1,
        lease: claim.status === "claimed" && claim.lease,
        sent: 1,
      });
      expect(r.hooks).toEqual(["claimed echo-1 5"]);
    }));

  it("of a running job returns the lease and attempt it has, without claiming it again", () =>
    rig("reclaim", (r) => {
      r.add("echo-1");
      const first = r.machine.claim("echo-1", 1, T0);
      const again = r.machine.claim("echo-1", 2, T0 + 1000);
      expect(again).toEqual(first);
      expect(r.row("echo-1")).toMatchObject({ attempt: 1, started_at: T0 });
      expect(r.hooks).toEqual(["claimed echo-1 0"]);
    }));

  it("of a finished or unknown job is `finished`: a late duplicate is dropped", () =>
    rig("claim-finished", (r) => {
      r.add("echo-1");
      r.machine.cancel("echo-1", T0);
      r.hooks.length = 0;
      expect(r.machine.claim("echo-1", 1, T0 + 1)).toEqual({ status: "finished" });
      expect(r.machine.claim("nobody-1", 1, T0 + 1)).toEqual({ status: "finished" });
      expect(r.row("echo-1")).toMatchObject({ state: "cancelled", lease: null });
      expect(r.hooks).toEqual([]);
    }));

  it("at or past the deadline expires the job instead: timeout, its work stopped, ended once", () =>
    rig("claim-late", (r) => {
      r.add("echo-1");
      expect(r.machine.claim("echo-1", 1, DEADLINE)).toEqual({ status: "finished" });
      expect(r.row("echo-1")).toMatchObject({
        state: "timeout",
        error: deadlineError(600),
        completed_at: DEADLINE,
        lease: null,
      });
      expect(r.hooks).toEqual(["ended echo-1 timeout 600000", "stopWork echo-1 pending"]);
      expect(logContent(r, "echo-1")).toBe(`Error: ${deadlineError(600)}`);
    }));
});

// Both ways a report arrives: with only the job id (a child chat's), so the row is read first, and
// with its batch (a call here or in a lane), so the job ends in one guarded update.
describe.each([
  ["read first", undefined],
  ["with its batch", "batch-1"],
] as const)("complete, %s", (way, batch) => {
  it("records the outcome under the job's lease: row, log row, waiters woken, ended once", () =>
    rig(`complete-${way}`, async (r) => {
      r.add("echo-1");
      const claim = r.machine.claim("echo-1", 1, T0);
      const sent: string[] = [];
      let attachment: unknown = null;
      r.sockets.push({
        send: (m) => void sent.push(m),
        serializeAttachment: (v) => void (attachment = v),
        deserializeAttachment: () => attachment,
      });
      r.waiters.wait(r.sockets[0]!, ["echo-1"]);
      const usage = { llm_calls: 1, prompt_tokens: 2, completion_tokens: 3, tool_calls: 0, subagents: 1 };
      const lease = claim.status === "claimed" ? claim.lease : "";
      expect(
        r.machine.complete(
          "echo-1",
          lease,
          { state: "success", result: "sunny", attempt: 1, usage },
          T0 + 50,
          BIG,
          batch,
        ),
      ).toEqual({ status: "recorded" });
      expect(r.row("echo-1")).toMatchObject({
        state: "success",
        result: "sunny",
        result_truncated: 0,
        error: null,
        completed_at: T0 + 50,
        lease: null,
        usage: JSON.stringify(usage),
      });
      expect(logContent(r, "echo-1")).toBe("sunny");
      expect(sent).toEqual([JOBS_ENDED]); // woken by the completion itself
      expect(r.hooks).toEqual(["claimed echo-1 0", "ended echo-1 success 50"]);
    }));

  it("under another lease is stale and changes nothing", () =>
    rig(`stale-${way}`, (r) => {
      r.add("echo-1");
      r.machine.claim("echo-1", 1, T0);
      const before = r.row("echo-1");
      expect(
        r.machine.complete(
          "echo-1",
          "not-the-lease",
          { state: "success", result: "x", attempt: 1 },
          T0 + 1,
          BIG,
          batch,
        ),
      ).toEqual({ status: "stale" });
      expect(
        r.machine.complete(
          "nobody-1",
          "not-the-lease",
          { state: "success", result: "x", attempt: 1 },
          T0 + 1,
          BIG,
          batch,
        ),
      ).toEqual({ status: "stale" });
      expect(r.row("echo-1")).toEqual(before);
      expect(r.hooks).toEqual(["claimed echo-1 0"]);
    }));

  it("a second time is stale: the first outcome stays", () =>
    rig(`twice-${way}`, (r) => {
      r.add("echo-1");
      const claim = r.machine.claim("echo-1", 1, T0);
      const lease = claim.status === "claimed" ? claim.lease : "";
      r.machine.complete("echo-1", lease, { state: "success", result: "first", attempt: 1 }, T0 + 1, BIG, batch);
      expect(
        r.machine.complete(
          "echo-1",
          lease,
          { state: "error", error_type: "tool_error", error: "second", attempt: 1 },
          T0 + 2,
          BIG,
          batch,
        ),
      ).toEqual({ status: "stale" });
      expect(r.row("echo-1")).toMatchObject({ state: "success", result: "first", completed_at: T0 + 1 });
    }));

  it("at or after the deadline is late: the result is discarded and the job times out", () =>
    rig(`late-${way}`, (r) => {
      r.add("echo-1");
      const claim = r.machine.claim("echo-1", 1, T0);
      const lease = claim.status === "claimed" ? claim.lease : "";
      expect(
        r.machine.complete("echo-1", lease, { state: "success", result: "too late", attempt: 1 }, DEADLINE, BIG, batch),
      ).toEqual({ status: "late" });
      expect(r.row("echo-1")).toMatchObject({ state: "timeout", result: null, error: deadlineError(600) });
      expect(r.hooks).toEqual(["claimed echo-1 0", "ended echo-1 timeout 600000", "stopWork echo-1 running"]);
    }));

  it("cuts a result to the stored-bytes budget, and an error to leave room for its `Error: ` prefix", () =>
    rig(`cut-${way}`, (r) => {
      for (const id of ["ok-1", "bad-1"]) r.add(id);
      const lease = (id: string) => {
        const c = r.machine.claim(id, 1, T0);
        return c.status === "claimed" ? c.lease : "";
      };
      r.machine.complete(
        "ok-1",
        lease("ok-1"),
        { state: "success", result: "abcdefghijklmnop", attempt: 1 },
        T0 + 1,
        10,
        batch,
      );
      r.machine.complete(
        "bad-1",
        lease("bad-1"),
        { state: "error", error_type: "tool_error", error: "abcdefghijklmnop", attempt: 1 },
        T0 + 1,
        10,
        batch,
      );
      expect(r.row("ok-1")).toMatchObject({ result: "abcdefghij", result_truncated: 1 });
      expect(r.row("bad-1")).toMatchObject({ state: "error", error_type: "tool_error", error: "abc" });
    }));

  it("cuts a result to the room its row's arguments leave, below the stored-bytes budget", () =>
    rig(`cut-beside-args-${way}`, (r) => {
      r.add("big-args-1", { tool_args: JSON.stringify({ blob: "a".repeat(1_950_000) }) });
      const claim = r.machine.claim("big-args-1", 1, T0);
      const lease = claim.status === "claimed" ? claim.lease : "";
      expect(
        r.machine.complete(
          "big-args-1",
          lease,
          { state: "success", result: "r".repeat(100_000), attempt: 1 },
          T0 + 1,
          BIG,
          batch,
        ),
      ).toEqual({ status: "recorded" });
      const row = r.row("big-args-1");
      expect(row.result_truncated).toBe(1);
      expect((row.result as string).length).toBe(2_000_000 - (r.row("big-args-1").tool_args as string).length);
    }));
});

describe("reads by many ids", () => {
  it("answers across the statements that bind them (90 ids each), in the order asked", () =>
    rig("many-ids", (r) => {
      const ids = Array.from({ length: 200 }, (_, i) => `bulk-${String(i).padStart(3, "0")}`);
      for (const id of ids) r.add(id);
      const asked = [...ids].reverse();
      expect(r.jobs.many(asked).map((j) => j.job_id)).toEqual(asked);
      expect(r.jobs.stillActive(asked).sort()).toEqual(ids);
      for (const id of ids.slice(0, 199)) r.machine.cancel(id, T0 + 1);
      expect(r.jobs.stillActive(asked)).toEqual(["bulk-199"]);
      r.machine.cancel("bulk-199", T0 + 2);
      expect(r.jobs.stillActive(asked)).toEqual([]);
    }));
});

describe("cancel", () => {
  it("ends a running job cancelled, stops its work once and calls ended once, however often it is asked", () =>
    rig("cancel", (r) => {
      r.add("echo-1");
      r.machine.claim("echo-1", 1, T0);
      r.machine.cancel("echo-1", T0 + 10);
      r.machine.cancel("echo-1", T0 + 20);
      expect(r.row("echo-1")).toMatchObject({ state: "cancelled", error: CANCELLED_ERROR, completed_at: T0 + 10 });
      expect(r.hooks).toEqual(["claimed echo-1 0", "ended echo-1 cancelled 10", "stopWork echo-1 running"]);
    }));

  it("stops the work of a job still pending too: a subordinate's hand-over may be in flight", () =>
    rig("cancel-pending", (r) => {
      r.add("sub-1", { kind: "subordinate", tool_name: "spawn_task" });
      r.machine.cancel("sub-1", T0 + 1);
      expect(r.row("sub-1")).toMatchObject({ state: "cancelled", started_at: T0 + 1 });
      expect(r.hooks).toEqual(["ended sub-1 cancelled 1", "stopWork sub-1 pending"]);
    }));
});

describe("finish", () => {
  it("is idempotent: a second finish changes nothing and calls no hook", () =>
    rig("finish", (r) => {
      r.add("echo-1");
      const f = (result: string): Finish => ({ state: "success", result });
      r.machine.finish(r.jobs.get("echo-1")!, f("first"), T0 + 1);
      const after = r.row("echo-1");
      r.machine.finish(r.jobs.get("echo-1")!, f("second"), T0 + 2);
      expect(r.row("echo-1")).toEqual(after);
      expect(after).toMatchObject({ state: "success", result: "first", completed_at: T0 + 1 });
      expect(logContent(r, "echo-1")).toBe("first");
      expect(r.hooks).toEqual(["ended echo-1 success 1"]);
    }));
});

describe("the built-in wait", () => {
  it("is handled by the chat: its claim sets the wait_done timer, finishWait ends it with the text a model reads", () =>
    rig("wait", (r) => {
      r.add("wait-1", { tool_name: "wait", tool_args: '{"seconds":2.5}' });
      expect(r.machine.claim("wait-1", 1, T0)).toEqual({ status: "handled" });
      expect(r.machine.claim("wait-1", 1, T0 + 1)).toEqual({ status: "handled" });
      expect(r.timersOf("wait-1")).toEqual([{ kind: "wait_done", at: T0 + 2500 }]);
      r.machine.finishWait("wait-1", T0 + 2500);
      expect(r.row("wait-1")).toMatchObject({ state: "success", result: "Waited 2.5 seconds." });
      expect(r.timersOf("wait-1")).toEqual([]);
      expect(r.hooks).toEqual(["claimed wait-1 0", "ended wait-1 success 2500"]);
    }));

  it("finishWait leaves a wait that is not running alone", () =>
    rig("wait-pending", (r) => {
      r.add("wait-1", { tool_name: "wait", tool_args: '{"seconds":1}' });
      r.machine.finishWait("wait-1", T0);
      expect(r.row("wait-1")).toMatchObject({ state: "pending" });
      expect(r.hooks).toEqual([]);
    }));

  it("cancelled, has no work to stop, and its timer goes with it", () =>
    rig("wait-cancel", (r) => {
      r.add("wait-1", { tool_name: "wait", tool_args: '{"seconds":1}' });
      r.machine.claim("wait-1", 1, T0);
      r.machine.cancel("wait-1", T0 + 1);
      expect(r.hooks).toEqual(["claimed wait-1 0", "ended wait-1 cancelled 1"]);
      expect(r.timersOf("wait-1")).toEqual([]);
    }));
});

describe("failUndeliverable", () => {
  it("ends a job nobody claimed for three watchdog periods with an error to start it again", () =>
    rig("undeliverable", (r) => {
      r.add("echo-1");
      expect(r.machine.failUndeliverable("echo-1", T0 + UNDELIVERABLE_AFTER_MS)).toBe("failed");
      expect(r.row("echo-1")).toMatchObject({ state: "error", error_type: "unavailable", error: UNDELIVERABLE_ERROR });
      expect(r.hooks).toEqual([`ended echo-1 error ${UNDELIVERABLE_AFTER_MS}`, "stopWork echo-1 pending"]);
    }));

  it("leaves a job the watchdog can still start to the watchdog (a chat unreachable for seconds, during a deploy)", () =>
    rig("undeliverable-early", (r) => {
      r.add("echo-1");
      expect(r.machine.failUndeliverable("echo-1", T0 + 6_000)).toBe("kept");
      expect(r.row("echo-1")).toMatchObject({ state: "pending" });
      expect(r.hooks).toEqual([]);
      expect(r.sql.exec(`SELECT at FROM timers WHERE kind = 'dispatch'`).one().at).toBe(T0 + 6_000 + 15_000);
    }));

  it("counts the wait of a held job from its release, not its admission", () =>
    rig("undeliverable-released", (r) => {
      // Admitted at T0, released (its deadline starts) 100 s later.
      r.add("echo-1", { deadline_at: T0 + 100_000 + 600_000 });
      expect(r.machine.failUndeliverable("echo-1", T0 + 100_000 + 6_000)).toBe("kept");
      expect(r.row("echo-1")).toMatchObject({ state: "pending" });
    }));

  it("leaves a claimed job alone: its call is under way", () =>
    rig("undeliverable-running", (r) => {
      r.add("echo-1");
      r.machine.claim("echo-1", 1, T0);
      expect(r.machine.failUndeliverable("echo-1", T0 + UNDELIVERABLE_AFTER_MS)).toBe("ignored");
      expect(r.row("echo-1")).toMatchObject({ state: "running" });
      expect(r.hooks).toEqual(["claimed echo-1 0"]);
    }));
});
