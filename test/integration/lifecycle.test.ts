/**
 * The job lifecycle through the real worker, ChatDO, local queue, runners and
 * alarms (docs/api.md#jobs-and-their-lifecycle): start and wait, background then await, await timeouts
 * that never cancel, collect, cancel, deadlines and purge.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DISPATCH_WATCHDOG_MS } from "../../durable-objects/chat/jobs/batch-rows";
import { forgetCached } from "../../durable-objects/chat/storage/sql-cache";
import { Timers } from "../../durable-objects/chat/storage/timers";
import {
  advanceAndRunAlarm,
  api,
  call,
  chatObject,
  configure,
  eventually,
  json,
  jobRow,
  parallel,
  toolConfig,
  jobInState,
} from "../helpers";

beforeEach(() => configure());
afterEach(async () => {
  vi.useRealTimers();
  await reset();
});

describe("start and wait", () => {
  it("waits by default and returns every result in call order", async () => {
    const { status, body } = await parallel("c1", {
      tool_calls: [call("sleep", { ms: 150 }), call("echo", { n: 1 }), call("text")],
    });
    expect(status).toBe(200);
    expect(body.status).toBe("success");
    expect(body.jobs.map((j: any) => j.tool_name)).toEqual(["sleep", "echo", "text"]);
    expect(body.jobs.map((j: any) => j.result)).toEqual(["slept 150", '{"n":1}', "plain answer"]);
    expect(body.instruction).toBeUndefined();
    expect(body.wait_timeout).toBeUndefined();
  });

  it("reports partial when some jobs fail and error when all do", async () => {
    const partial = await parallel("c1", { tool_calls: [call("echo"), call("refuse")] });
    expect(partial.body.status).toBe("partial");
    expect(partial.body.jobs[1]).toMatchObject({ state: "error", error: "tool says no" });
    const failed = await parallel("c1", { tool_calls: [call("refuse"), call("fail404")] });
    expect(failed.body.status).toBe("error");
    expect(failed.body.jobs[1].error).toBe("HTTP 404: status 404");
  });

  it("measures duration from claim to completion", async () => {
    const { body } = await parallel("c1", { tool_calls: [call("sleep", { ms: 300 })] });
    expect(body.jobs[0].duration_seconds).toBeGreaterThanOrEqual(0.3);
    expect(body.jobs[0].duration_seconds).toBeLessThan(5);
    expect(Number.isInteger(Math.round(body.jobs[0].duration_seconds * 1000))).toBe(true);
  });

  it("answers text/plain with the compact JSON a model should see", async () => {
    const res = await api("/v1/chats/c1/parallel", {
      body: { tool_calls: [call("echo", { a: 1 })] },
      headers: { accept: "text/plain" },
    });
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text.startsWith('{"status":"success","jobs":[{"job_id":"echo-')).toBe(true);
    expect(text).not.toContain("\n");
  });

  it("answers text/plain errors as `Error: <message>` with the same status", async () => {
    const res = await api("/v1/chats/c1/parallel", { body: { tool_calls: [] }, headers: { accept: "text/plain" } });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe("Error: `tool_calls` must contain at least one tool call.");
  });

  it("accepts the whole tool envelope and unwraps it", async () => {
    const { body } = await parallel("c1", {
      tool_name: "parallel",
      tool_args: { tool_calls: [call("echo", { x: 2 })] },
    });
    expect(body.jobs[0].result).toBe('{"x":2}');
  });
});

describe("background jobs", () => {
  it("wait:false answers started with snapshots and no results", async () => {
    const { body } = await parallel("c1", { tool_calls: [call("sleep", { ms: 200 }), call("echo")], wait: false });
    expect(Object.keys(body)).toEqual(["status", "jobs", "instruction"]);
    expect(body.status).toBe("started");
    expect(body.instruction).toBe("Use the parallel tool with job_ids to await or cancel these background jobs.");
    for (const job of body.jobs) {
      expect(Object.keys(job)).toEqual(["job_id", "tool_name", "state", "duration_seconds"]);
      // Pending, or already claimed through the fast path: either way no result yet.
      expect(["pending", "running"]).toContain(job.state);
      expect(job.job_id).toMatch(/^(sleep|echo)-[A-Za-z0-9_-]{12}$/);
    }
  });

  it("action start defaults to not waiting; await then returns the results", async () => {
    const started = await parallel("c1", { action: "start", tool_calls: [call("sleep", { ms: 100 })] });
    expect(started.body.status).toBe("started");
    const ids = started.body.jobs.map((j: any) => j.job_id);
    const awaited = await parallel("c1", { action: "await", job_ids: ids });
    expect(awaited.body).toMatchObject({
      status: "success",
      jobs: [{ job_id: ids[0], state: "success", result: "slept 100" }],
    });
  });

  it("an await past its timeout returns waiting and never cancels; the job finishes and is awaitable again", async () => {
    const started = await parallel("c1", { tool_calls: [call("sleep", { ms: 1500 })], wait: false });
    const id = started.body.jobs[0].job_id;
    const first = await parallel("c1", { action: "await", job_ids: [id], timeout: 1 });
    expect(first.body.status).toBe("waiting");
    expect(first.body.wait_timeout).toBe(true);
    expect(first.body.instruction).toBe(
      'Some jobs are still running. Call `parallel` with `action: "await"` and the listed `job_ids` to wait again, or `action: "cancel"` to stop them.',
    );
    expect(first.body.jobs[0]).toMatchObject({ job_id: id, state: "running", wait_timed_out: true });
    const second = await parallel("c1", { action: "await", job_ids: id });
    expect(second.body).toMatchObject({ status: "success", jobs: [{ state: "success", result: "slept 1500" }] });
    expect(second.body.jobs[0].wait_timed_out).toBeUndefined();
  });

  it("given job_ids come first and started ids are appended", async () => {
    const a = await parallel("c1", { tool_calls: [call("echo", { a: 1 })], wait: false });
    const idA = a.body.jobs[0].job_id;
    const b = await parallel("c1", { job_ids: [idA], tool_calls: [call("echo", { b: 2 })] });
    expect(b.body.jobs.map((j: any) => j.job_id)[0]).toBe(idA);
    expect(b.body.jobs[1].tool_name).toBe("echo");
    expect(b.body.jobs.map((j: any) => j.result)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("reports running without wait_timeout when not waiting on active jobs", async () => {
    const a = await parallel("c1", { tool_calls: [call("sleep", { ms: 1000 })], wait: false });
    const res = await parallel("c1", { action: "collect", job_ids: [a.body.jobs[0].job_id] });
    expect(res.body.status).toBe("running");
    expect(res.body.wait_timeout).toBeUndefined();
    expect(res.body.instruction).toContain("Some jobs are still running.");
  });
});

describe("collect", () => {
  it("returns at once and removes only terminal jobs from the active list", async () => {
    const fast = await parallel("c1", { tool_calls: [call("echo")], wait: false });
    const slow = await parallel("c1", { tool_calls: [call("sleep", { ms: 1500 })], wait: false });
    const fastId = fast.body.jobs[0].job_id;
    const slowId = slow.body.jobs[0].job_id;
    await eventually(async () => (await jobRow("c1", fastId))?.state === "success");

    const collected = await parallel("c1", { action: "collect", job_ids: [fastId, slowId] });
    expect(collected.body.jobs.map((j: any) => j.state)).toEqual(["success", "running"]);

    const listed = await json(await api("/v1/chats/c1/jobs"));
    expect(listed.jobs.map((j: any) => j.job_id)).toEqual([slowId]);
    // Collected jobs still answer an await with their final snapshot.
    const again = await parallel("c1", { action: "await", job_ids: [fastId] });
    expect(again.body).toMatchObject({ status: "success", jobs: [{ job_id: fastId, state: "success" }] });
  });

  it("collect with wait:true waits like an await", async () => {
    const s = await parallel("c1", { tool_calls: [call("sleep", { ms: 200 })], wait: false });
    const res = await parallel("c1", { action: "collect", wait: true, job_ids: [s.body.jobs[0].job_id] });
    expect(res.body.status).toBe("success");
  });
});

describe("cancel", () => {
  it("ends pending and running jobs, answers cancelled, and removes them", async () => {
    const s = await parallel("c1", { tool_calls: [call("hang"), call("hang_write")], wait: false });
    const ids = s.body.jobs.map((j: any) => j.job_id);
    const res = await parallel("c1", { action: "cancel", job_ids: ids, tool_calls: [call("echo")] });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("cancelled");
    expect(res.body.jobs).toHaveLength(2); // cancel ignores tool_calls
    for (const job of res.body.jobs)
      expect(job).toMatchObject({ state: "cancelled", error: "Parallel job was cancelled." });
    const listed = await json(await api("/v1/chats/c1/jobs"));
    expect(listed.jobs).toEqual([]);
  });

  it("returns terminal jobs' snapshots unchanged", async () => {
    const s = await parallel("c1", { tool_calls: [call("echo", { k: 1 })] });
    const id = s.body.jobs[0].job_id;
    const res = await parallel("c1", { action: "cancel", job_ids: id });
    expect(res.body).toMatchObject({ status: "success", jobs: [{ job_id: id, state: "success", result: '{"k":1}' }] });
  });

  it("reports every unknown id together and cancels nothing", async () => {
    const s = await parallel("c1", { tool_calls: [call("hang")], wait: false });
    const id = s.body.jobs[0].job_id;
    const res = await parallel("c1", { action: "cancel", job_ids: [id, "nope-1", "nope-2"] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: "unknown_job_ids",
      message: "Unknown parallel job id(s): nope-1, nope-2",
    });
    expect((await jobRow("c1", id))?.state).not.toBe("cancelled");
  });

  it("without job_ids is refused", async () => {
    const res = await parallel("c1", { action: "cancel" });
    expect(res.body.error).toEqual({ code: "no_job_ids_to_cancel", message: "No `job_ids` were provided to cancel." });
  });
});

describe("deadlines", () => {
  it("a job past its deadline becomes timeout through the alarm and its late result is discarded", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const s = await parallel("c1", { tool_calls: [call("hang")], job_timeout: 30, wait: false });
    const id = s.body.jobs[0].job_id;
    const running = await jobInState("c1", id, "running");
    expect(await advanceAndRunAlarm("c1", 31_000)).toBe(true);
    const res = await parallel("c1", { action: "await", job_ids: [id] });
    expect(res.body.jobs[0]).toMatchObject({
      state: "timeout",
      error: "Job exceeded its 30 s deadline (job_timeout) and was stopped; its late result was discarded.",
    });
    const late = await chatObject("c1").completeJob(id, running.lease, {
      state: "success",
      result: "too late",
      attempt: 1,
    });
    expect(late.status).toBe("stale");
    expect((await jobRow("c1", id))?.result).toBeNull();
  });

  it("a completion arriving at or after the deadline ends the job timeout, not success", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const s = await parallel("c1", { tool_calls: [call("hang")], job_timeout: 10, wait: false });
    const id = s.body.jobs[0].job_id;
    const running = await jobInState("c1", id, "running");
    vi.setSystemTime(Date.now() + 10_001);
    const late = await chatObject("c1").completeJob(id, running.lease, {
      state: "success",
      result: "late",
      attempt: 1,
    });
    expect(late.status).toBe("late");
    expect(await jobRow("c1", id)).toMatchObject({ state: "timeout", result: null });
  });

  it("a wait longer than its deadline is refused at once, naming the deadline, and starts nothing", async () => {
    const s = await parallel("c1w", {
      tool_calls: [call("echo"), call("wait", { seconds: 100 })],
      job_timeout: 5,
      wait: false,
    });
    expect(s.status).toBe(400);
    expect(s.body.error).toEqual({
      code: "invalid_tool_calls",
      message:
        "tool_calls[1] is not a valid tool call: /seconds must be at most the job's deadline of 5 s (job_timeout); wait less or raise job_timeout",
    });
    const fallback = await parallel("c1w", { tool_calls: [call("wait", { seconds: 601 })], wait: false });
    expect(fallback.body.error.message).toContain(
      "/seconds must be at most the job's deadline of 600 s (limits.tool_job_timeout_seconds)",
    );
    expect((await api("/v1/chats/c1w")).status).toBe(404);
  });

  it("one chat timer serves every deadline: each job ends at its own, the timer moving to the next", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const late = (await parallel("c9", { tool_calls: [call("hang")], job_timeout: 20, wait: false })).body.jobs[0]
      .job_id;
    const soon = (
      await parallel("c9", { tool_calls: [call("hang"), call("hang")], job_timeout: 5, wait: false })
    ).body.jobs.map((j: any) => j.job_id);
    const deadlineTimers = () =>
      runInDurableObject(chatObject("c9"), (_i, s) =>
        s.storage.sql.exec(`SELECT ref, at FROM timers WHERE kind = 'deadline'`).toArray(),
      );
    for (const id of [late, ...soon]) await jobInState("c9", id, "running");
    expect(await deadlineTimers()).toEqual([{ ref: "", at: (await jobRow("c9", soon[0]))!.deadline_at }]);
    await advanceAndRunAlarm("c9", 6_000);
    expect([
      (await jobRow("c9", soon[0]))?.state,
      (await jobRow("c9", soon[1]))?.state,
      (await jobRow("c9", late))?.state,
    ]).toEqual(["timeout", "timeout", "running"]);
    expect(await deadlineTimers()).toEqual([{ ref: "", at: (await jobRow("c9", late))!.deadline_at }]);
    await advanceAndRunAlarm("c9", 15_000);
    expect((await jobRow("c9", late))?.state).toBe("timeout");
    expect(await deadlineTimers()).toEqual([]);
  });

  it("a chat stored with one deadline timer per job (before they were merged) still ends its jobs on time", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const id = (await parallel("c10", { tool_calls: [call("hang")], job_timeout: 5, wait: false })).body.jobs[0].job_id;
    await runInDurableObject(chatObject("c10"), (_i, s) => {
      const at = s.storage.sql.exec(`SELECT at FROM timers WHERE kind = 'deadline'`).one().at;
      s.storage.sql.exec(`UPDATE timers SET ref = ? WHERE kind = 'deadline'`, id);
      return at;
    });
    await advanceAndRunAlarm("c10", 6_000);
    expect((await jobRow("c10", id))?.state).toBe("timeout");
  });

  it("rejects job_timeout above max_job_timeout_seconds", async () => {
    const res = await parallel("c1", { tool_calls: [call("echo")], job_timeout: 3601 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_timeout");
  });
});

describe("the timers that watch jobs", () => {
  const timers = (chat: string) =>
    runInDurableObject(chatObject(chat), async (_i, st) => ({
      kinds: st.storage.sql
        .exec<{ kind: string }>("SELECT kind FROM timers ORDER BY kind")
        .toArray()
        .map((t) => t.kind),
      alarm: await st.storage.getAlarm(),
      purge: st.storage.sql.exec<{ at: number }>("SELECT at FROM timers WHERE kind = 'purge'").toArray()[0]?.at,
    }));

  it("are parked when the chat's last job ends: the alarm points past them, and the next batch moves them", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const s = await parallel("tw1", { tool_calls: [call("echo"), call("echo")] });
    expect(s.body.status).toBe("success");
    const idle = await timers("tw1");
    expect(idle.kinds).toEqual(["deadline", "dispatch", "exec", "purge"]);
    expect(idle.alarm).toBe(idle.purge); // not the heartbeat 10 s on: nothing wakes the quiet chat

    // A batch long after: the watches that came due are moved to its jobs, none is left in the past.
    vi.setSystemTime(Date.now() + 20_000);
    const next = await parallel("tw1", { tool_calls: [call("hang")], job_timeout: 30, wait: false });
    const id = next.body.jobs[0].job_id;
    await jobInState("tw1", id, "running");
    const now = Date.now();
    const watched = await runInDurableObject(chatObject("tw1"), async (_i, st) => ({
      past: st.storage.sql
        .exec<{ n: number }>("SELECT COUNT(*) AS n FROM timers WHERE kind != 'purge' AND at <= ?", now)
        .one().n,
      kinds: st.storage.sql
        .exec<{ kind: string }>("SELECT kind FROM timers ORDER BY kind")
        .toArray()
        .map((t) => t.kind),
      alarm: await st.storage.getAlarm(),
    }));
    expect(watched.past).toBe(0);
    expect(watched.kinds).toEqual(["deadline", "dispatch", "exec", "purge"]);
    expect(watched.alarm).toBeGreaterThan(now);
    expect(watched.alarm).toBeLessThanOrEqual((await jobRow("tw1", id))!.deadline_at);
    vi.setSystemTime(Date.now() + 31_000);
    for (let i = 0; i < 3 && (await jobRow("tw1", id))?.state !== "timeout"; i++) await advanceAndRunAlarm("tw1", 0);
    expect((await jobRow("tw1", id))?.state).toBe("timeout");
  });

  it("stay armed in a chat whose batches follow each other within a heartbeat", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    expect((await parallel("tw4", { tool_calls: [call("echo")] })).body.status).toBe("success");
    vi.setSystemTime(Date.now() + 1_000);
    expect((await parallel("tw4", { tool_calls: [call("echo")] })).body.status).toBe("success");
    const busy = await timers("tw4");
    // Its alarm stays at the first watch rather than moving to the purge and back with every batch.
    expect(busy.kinds).toEqual(["deadline", "dispatch", "exec", "purge"]);
    expect(busy.alarm).toBeLessThan(busy.purge!);
    // Fired with no job left, the watches go, and the alarm moves on to the purge. The first is the
    // dispatch watchdog: a Worker runner's call gets no heartbeat before its lease could lapse.
    await advanceAndRunAlarm("tw4", DISPATCH_WATCHDOG_MS + 1_000);
    const after = await timers("tw4");
    expect(after.kinds).toEqual(["purge"]);
    expect(after.alarm).toBe(after.purge);
    // Quiet that long before the next batch, the chat parks them when it ends.
    expect((await parallel("tw4", { tool_calls: [call("echo")] })).body.status).toBe("success");
    const quiet = await timers("tw4");
    expect(quiet.kinds).toEqual(["deadline", "dispatch", "exec", "purge"]);
    expect(quiet.alarm).toBe(quiet.purge);
  });

  it("that are parked and due go with the first alarm that fires for another timer", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    expect((await parallel("tw2", { tool_calls: [call("echo")] })).body.status).toBe("success");
    const parked = await timers("tw2");
    expect(parked.alarm).toBe(parked.purge);
    await advanceAndRunAlarm("tw2", 20_000); // the purge timer's alarm, run early: the watches are due by now
    expect((await timers("tw2")).kinds).toEqual(["purge"]);
  });

  it("are counted by an instance that has lost its notes while a job is active", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    expect((await parallel("tw6", { tool_calls: [call("echo")] })).body.status).toBe("success");
    vi.setSystemTime(Date.now() + 20_000);
    const id = (await parallel("tw6", { tool_calls: [call("hang")], job_timeout: 30, wait: false })).body.jobs[0]
      .job_id;
    await jobInState("tw6", id, "running");
    // As after a restart or a rolled-back transaction: nothing in memory says the watches are armed.
    const next = await runInDurableObject(chatObject("tw6"), (_i, st) => {
      forgetCached(st.storage.sql);
      return new Timers(st.storage.sql, st.storage).next();
    });
    expect(next).toBeLessThanOrEqual((await jobRow("tw6", id))!.deadline_at);
  });

  it("still fire for a job admitted while parked ones are ahead of it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    expect((await parallel("tw3", { tool_calls: [call("echo")] })).body.status).toBe("success");
    vi.setSystemTime(Date.now() + 2_000); // idle, the watches still 8–13 s ahead
    const id = (await parallel("tw3", { tool_calls: [call("hang")], job_timeout: 5, wait: false })).body.jobs[0].job_id;
    await jobInState("tw3", id, "running");
    const { alarm } = await timers("tw3");
    expect(alarm).toBeLessThanOrEqual((await jobRow("tw3", id))!.deadline_at);
    vi.setSystemTime(Date.now() + 6_000);
    for (let i = 0; i < 3 && (await jobRow("tw3", id))?.state !== "timeout"; i++) await advanceAndRunAlarm("tw3", 0);
    expect((await jobRow("tw3", id))?.state).toBe("timeout");
  });
});

describe("wait tool", () => {
  it("is finished by the chat's alarm", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const s = await parallel("c1", { tool_calls: [call("wait", { seconds: 120 })], wait: false });
    const id = s.body.jobs[0].job_id;
    await eventually(async () => (await jobRow("c1", id))?.state === "running");
    await advanceAndRunAlarm("c1", 121_000);
    expect(await jobRow("c1", id)).toMatchObject({ state: "success", result: "Waited 120 seconds." });
  });
});

describe("purge", () => {
  it("deletes terminal jobs after retention and returns the chat to nothing", async () => {
    await configure(toolConfig({ limits: { retention_seconds: 60 } }));
    const s = await parallel("c1", { tool_calls: [call("echo")] });
    expect(s.body.status).toBe("success");
    const id = s.body.jobs[0].job_id;
    vi.useFakeTimers({ toFake: ["Date"] });
    expect(await advanceAndRunAlarm("c1", 59_000)).toBe(true);
    expect((await jobRow("c1", id))?.state).toBe("success"); // not yet
    await advanceAndRunAlarm("c1", 2_000);
    const gone = await parallel("c1", { action: "await", job_ids: [id] });
    expect(gone.body.error).toMatchObject({ code: "unknown_job_ids" });
    expect((await api("/v1/chats/c1")).status).toBe(404);
    const tables = await runInChatSql("c1", "SELECT name FROM sqlite_master WHERE type = 'table'");
    expect(tables.filter((t: any) => !String(t.name).startsWith("_cf"))).toEqual([]);
  });
});

describe("idempotency records", () => {
  it("outlive their purged jobs by 24 hours, then the key is free again", async () => {
    await configure(toolConfig({ limits: { retention_seconds: 60 } }));
    const headers = { "idempotency-key": "daily-report" };
    const first = await parallel("c1", { tool_calls: [call("echo", { day: 1 })] }, { headers });
    vi.useFakeTimers({ toFake: ["Date"] });
    await advanceAndRunAlarm("c1", 61_000); // jobs purged; the record stays
    const conflict = await parallel("c1", { tool_calls: [call("echo", { day: 2 })] }, { headers });
    expect(conflict.status).toBe(409);
    await advanceAndRunAlarm("c1", 24 * 3600_000);
    vi.useRealTimers();
    const fresh = await parallel("c1", { tool_calls: [call("echo", { day: 2 })] }, { headers });
    expect(fresh.status).toBe(200);
    expect(fresh.body.jobs[0].job_id).not.toBe(first.body.jobs[0].job_id);
  });
});

async function runInChatSql(chat: string, query: string) {
  const { runInDurableObject } = await import("cloudflare:test");
  return runInDurableObject(chatObject(chat), (_i, state) => state.storage.sql.exec(query).toArray());
}
