/**
 * At-least-once delivery and crashes (docs/architecture.md#platform-rules, docs/api.md#attempts-and-retries):
 * duplicated messages, a
 * consumer that fails mid-batch, chats lost mid-call, a lost dispatch, the
 * dead-letter queue. Nothing is lost and nothing runs twice.
 *
 * Faults are injected from the test only (the deploy bundle has none): by
 * delivering hand-made batches to the worker's queue handler, aborting
 * objects, and swapping the ChatDO's queue binding for one that drops sends.
 */
import {
  abortAllDurableObjects,
  createExecutionContext,
  env,
  evictDurableObject,
  reset,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { degradeChat, deliver, message, startedJob, swapEnv } from "../faults";
import { UNDELIVERABLE_AFTER_MS } from "../../durable-objects/chat/jobs/job-machine";
import { EXEC_HEARTBEAT_MS } from "../../durable-objects/chat/storage/timers";
import { RUNNER_LAPSES_AFTER_MS } from "../../src/core/runner/lease";
import {
  call,
  chatObject,
  configure,
  eventually,
  jobRow,
  parallel,
  toolCalls,
  toolConfig,
  jobInState,
  CALLS_IN_OBJECTS,
} from "../helpers";

// The default deadline: calls go to the `calls` queue, whose message is their queue copy (worker-runners.test.ts).
beforeEach(() => configure());
afterEach(async () => {
  vi.useRealTimers();
  await reset();
});

describe("duplicate deliveries", () => {
  it("the same message delivered again (also in one batch) calls the tool once", async () => {
    const id = await startedJob("d1", call("sleep", { ms: 300 }));
    const result = await deliver("jobs", [message("d1", id), message("d1", id)]);
    expect(result.explicitAcks).toEqual(["m0", "m1"]);
    const { body } = await parallel("d1", { action: "await", job_ids: [id] });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "slept 300" });
    expect(await toolCalls(id)).toHaveLength(1);
  });

  it("a duplicate arriving after completion never overwrites the finished job", async () => {
    const { body } = await parallel("d1", { tool_calls: [call("echo", { v: 1 })] });
    const id = body.jobs[0].job_id;
    await deliver("jobs", [message("d1", id)]);
    const after = await jobRow("d1", id);
    expect(after).toMatchObject({ state: "success", result: '{"v":1}' });
    expect(await toolCalls(id)).toHaveLength(1);
  });
});

describe("drill: every queue message duplicated", () => {
  // In runner objects, and in runners the chat starts itself, the batch's one copy follows the fast
  // path; sent to queue consumers, the calls' two messages (4 calls each) are their copies
  // (docs/architecture.md#where-a-call-runs).
  it.each([
    { where: "in runner objects", job_timeout: 1800, queue: "jobs", messages: [8] },
    { where: "in runners the chat starts itself", job_timeout: 10, queue: "jobs", messages: [8] },
    { where: "in queue consumers", job_timeout: 60, queue: "calls", messages: [4, 4] },
  ])(
    "a whole batch run $where and delivered three times runs each attempt once",
    async ({ job_timeout, queue, messages }) => {
      await parallel("d7", { tool_calls: [call("echo", { warm: 1 })] });
      const { sent } = await degradeChat("d7", { queue: "record" }); // the real queue still gets every copy
      const calls = [
        call("echo", { n: 1 }),
        call("sleep", { ms: 200 }),
        call("flaky_read", { failures: 1 }),
        call("flaky_write", { failures: 1 }),
        call("hang_write", {}),
        call("text", {}),
        call("echo", { n: 2 }),
        call("sleep", { ms: 50 }),
      ];
      const started = await parallel("d7", { tool_calls: calls, wait: false, job_timeout });
      const ids: string[] = started.body.jobs.map((j: { job_id: string }) => j.job_id);
      await eventually(async () => sent.length === messages.length);
      expect((sent as { jobs: { job_id: string }[] }[]).map((m) => m.jobs.length)).toEqual(messages);
      expect((sent as { jobs: { job_id: string }[] }[]).flatMap((m) => m.jobs.map((j) => j.job_id))).toEqual(ids);
      // Every message again, twice, once the real deliveries took the calls (a duplicate that came
      // first would run them in this test's own invocation, which `deliver` waits out): one batch
      // with each duplicated, then the batch again.
      await eventually(async () =>
        (await Promise.all(ids.map((id) => jobRow("d7", id)))).every((row) => row?.state !== "pending"),
      );
      await deliver(queue, [...sent, ...sent]);
      await deliver(queue, sent);
      await eventually(async () => (await toolCalls(ids[4]!)).length === 1);
      await parallel("d7", { action: "cancel", job_ids: [ids[4]] });
      const { body } = await parallel("d7", { action: "await", job_ids: ids, timeout: 15 });
      expect(body.jobs.map((j: { state: string }) => j.state)).toEqual([
        "success",
        "success",
        "success",
        "success",
        "cancelled",
        "success",
        "success",
        "success",
      ]);
      const attempts = await Promise.all(
        ids.map(async (id) => (await toolCalls(id)).map((c) => JSON.parse(c.body).attempt)),
      );
      // Only the two flaky tools see a second attempt, after a 503 (docs/api.md#attempts-and-retries allows
      // it for both); nothing runs an attempt twice.
      expect(attempts).toEqual([[1], [1], [1, 2], [1, 2], [1], [1], [1], [1]]);
    },
  );
});

/**
 * Jobs nobody starts before the watchdog: their `calls` messages were lost, and the chat, evicted since,
 * forgot it sent them.
 */
async function stranded<const T extends ReturnType<typeof call>[]>(
  chat: string,
  tools: T,
): Promise<{ [K in keyof T]: string }> {
  await parallel(chat, { tool_calls: [call("echo", { warm: 1 })] }); // the chat exists
  await degradeChat(chat, { queue: "drop" });
  const ids: string[] = [];
  for (const tool of tools) ids.push(await startedJob(chat, tool));
  await evictDurableObject(chatObject(chat)).catch(() => abortAllDurableObjects()); // the real queues back
  return ids as { [K in keyof T]: string };
}

describe("a consumer batch", () => {
  it("makes one call per chat: copies of ended jobs end there, the rest start", async () => {
    const done = await startedJob("d9", call("echo", { done: 1 }));
    await jobInState("d9", done, "success");
    const [a, b] = await stranded("d9", [call("echo", { a: 1 }), call("echo", { b: 1 })]);
    const other = await startedJob("d10", call("echo", { other: 1 }));
    const handOffs: string[][] = [];
    const counted = {
      getByName: (name: string) => {
        const chat = env.CHAT.getByName(name);
        return { takeQueued: (ids: string[]) => (handOffs.push([name, ...ids]), chat.takeQueued(ids)) };
      },
    };
    const result = await deliver(
      "jobs",
      [message("d9", done), message("d9", a), message("d9", b), message("d10", other)],
      { CHAT: counted },
    );
    expect(result.explicitAcks.sort()).toEqual(["m0", "m1", "m2", "m3"]);
    expect(handOffs).toEqual([
      ["chat/acme/d9", done, a, b],
      ["chat/acme/d10", other],
    ]);
    expect(await jobInState("d9", a, "success")).toMatchObject({ result: '{"a":1}' });
    expect(await jobInState("d9", b, "success")).toMatchObject({ result: '{"b":1}' });
    await jobInState("d10", other, "success");
    for (const id of [done, a, b, other]) expect(await toolCalls(id)).toHaveLength(1);
  });
});

/** A finished job, and a pending one whose call cannot leave: the chat's `calls` queue refuses every send. */
async function doneAndStuck(chat: string): Promise<[string, string]> {
  const done = await startedJob(chat, call("echo", { done: 1 }));
  await jobInState(chat, done, "success");
  await degradeChat(chat, { queue: "fail" });
  return [done, await startedJob(chat, call("echo", { stuck: 1 }))];
}

describe("a consumer batch with a job that cannot start", () => {
  it("retries that job's message alone and acks the chat's others", async () => {
    const [done, stuck] = await doneAndStuck("d11");
    const result = await deliver("jobs", [message("d11", done), message("d11", stuck)]);
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(result.retryMessages.map((r) => r.msgId)).toEqual(["m1"]);
    expect((await jobRow("d11", stuck))?.state).toBe("pending");
  });
});

describe("a batch's one queue message", () => {
  it("is redelivered whole when one of its jobs could not start, and the redelivery starts only that one", async () => {
    const [done, stuck] = await doneAndStuck("d12");
    const copy = { tenant: "acme", chat_id: "d12", jobs: [done, stuck].map((job_id) => ({ job_id, attempt: 1 })) };
    expect((await deliver("jobs", [copy])).retryMessages.map((r) => r.msgId)).toEqual(["m0"]);
    await evictDurableObject(chatObject("d12")).catch(() => abortAllDurableObjects()); // the queue is back
    expect((await deliver("jobs", [copy])).explicitAcks).toEqual(["m0"]);
    await jobInState("d12", stuck, "success");
    expect(await toolCalls(done)).toHaveLength(1);
    expect(await toolCalls(stuck)).toHaveLength(1);
  });

  it("dead-lettered, fails every job it names that nobody could start", async () => {
    const ids = await stranded("d13", [call("echo", { a: 1 }), call("echo", { b: 1 })]);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + UNDELIVERABLE_AFTER_MS);
    await deliver("jobs-dlq", [
      { tenant: "acme", chat_id: "d13", jobs: ids.map((job_id) => ({ job_id, attempt: 1 })) },
    ]);
    vi.useRealTimers();
    for (const id of ids) expect((await jobRow("d13", id))?.error).toBe("Job could not be dispatched; start it again.");
  });
});

describe("a consumer failing mid-batch", () => {
  it("retries only the message it could not read, and the redelivered batch runs nothing twice", async () => {
    const a = await startedJob("d2", call("echo", { a: 1 }));
    const b = await startedJob("d2", call("echo", { b: 2 }));
    const settled: Record<string, string> = {};
    const fake = (id: string, read: () => unknown) => ({
      id,
      timestamp: new Date(),
      attempts: 1,
      get body() {
        return read();
      },
      ack: () => void (settled[id] = "ack"),
      retry: () => void (settled[id] = "retry"),
    });
    const batch = {
      queue: "jobs",
      messages: [
        fake("m0", () => message("d2", a)),
        fake("m1", () => {
          throw new Error("corrupted message");
        }),
        fake("m2", () => message("d2", b)),
      ],
      ackAll: () => {},
      retryAll: () => {},
    };
    await worker.queue(batch as unknown as MessageBatch<unknown>, env, createExecutionContext());
    expect(settled).toEqual({ m0: "ack", m1: "retry", m2: "ack" });
    // The runtime redelivers the whole batch after a crash: every message again.
    await deliver("jobs", [message("d2", a), message("d2", b)]);
    const { body } = await parallel("d2", { action: "await", job_ids: [a, b] });
    expect(body.status).toBe("success");
    expect(await toolCalls(a)).toHaveLength(1);
    expect(await toolCalls(b)).toHaveLength(1);
  });

  it("acks a malformed message instead of redelivering it forever", async () => {
    const result = await deliver("jobs", [{ nonsense: true }]);
    expect(result.explicitAcks).toEqual(["m0"]);
  });
});

/**
 * Every instance is gone mid-call (a deploy): the chat's and its runner objects', whose calls stop
 * renewing their leases. The chat's heartbeat finds them lapsed and recovers the calls.
 */
async function loseEverythingAndRunHeartbeat(chat: string) {
  await abortAllDurableObjects(); // every live instance is gone; storage stays
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + RUNNER_LAPSES_AFTER_MS + EXEC_HEARTBEAT_MS);
  expect(await runDurableObjectAlarm(chatObject(chat))).toBe(true);
  vi.useRealTimers();
}

describe("a deploy mid-call", () => {
  // Calls in runner objects, which a deploy stops as it stops the chat (Worker runners: worker-runners.test.ts).
  beforeEach(() => configure(toolConfig({ limits: CALLS_IN_OBJECTS })));

  it("retries a read-only job with the next attempt", async () => {
    const id = await startedJob("d3", call("sleep", { ms: 1500 }));
    await eventually(async () => (await toolCalls(id)).length === 1);
    await loseEverythingAndRunHeartbeat("d3");
    const { body } = await parallel("d3", { action: "await", job_ids: [id] });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "slept 1500" });
    const attempts = (await toolCalls(id)).map((c) => JSON.parse(c.body).attempt);
    expect(attempts).toEqual([1, 2]);
  });

  it("ends a side-effecting job `error` outcome unknown and never re-sends it", async () => {
    const id = await startedJob("d3", call("hang_write"));
    await eventually(async () => (await toolCalls(id)).length === 1);
    await loseEverythingAndRunHeartbeat("d3");
    const { body } = await parallel("d3", { action: "await", job_ids: [id] });
    expect(body.jobs[0]).toMatchObject({
      state: "error",
      error: "Outcome unknown: the tool may have run; not retried.",
    });
    expect(await toolCalls(id)).toHaveLength(1);
  });

  it("recovers each of several calls by its own rules, one invocation each", async () => {
    const a = await startedJob("d3", call("sleep", { ms: 300 }));
    const b = await startedJob("d3", call("hang_write"));
    const c = await startedJob("d3", call("sleep", { ms: 200 }));
    await eventually(async () => (await Promise.all([a, b, c].map(toolCalls))).every((calls) => calls.length === 1));
    await loseEverythingAndRunHeartbeat("d3");
    const { body } = await parallel("d3", { action: "await", job_ids: [a, b, c] });
    expect(body.jobs.map((j: { state: string }) => j.state)).toEqual(["success", "error", "success"]);
    expect((await toolCalls(b)).length).toBe(1);
    expect((await toolCalls(c)).map((x) => JSON.parse(x.body).attempt)).toEqual([1, 2]);
  });

  it("an evicted chat takes its call's outcome from the runner that held it: the call runs once", async () => {
    const id = await startedJob("d3", call("sleep", { ms: 600 }));
    await eventually(async () => (await toolCalls(id)).length === 1);
    await evictDurableObject(chatObject("d3")).catch(() => {});
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + EXEC_HEARTBEAT_MS + 1_000);
    await runDurableObjectAlarm(chatObject("d3"));
    vi.useRealTimers();
    const { body } = await parallel("d3", { action: "await", job_ids: [id] });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "slept 600" });
    expect(await toolCalls(id)).toHaveLength(1);
  });

  it("the heartbeat leaves a live call alone and keeps watching it", async () => {
    const id = await startedJob("d8", call("sleep", { ms: 1200 }));
    await eventually(async () => (await toolCalls(id)).length === 1);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + EXEC_HEARTBEAT_MS + 1_000);
    expect(await runDurableObjectAlarm(chatObject("d8"))).toBe(true);
    const next = await runInDurableObject(
      chatObject("d8"),
      (_i, s) => s.storage.sql.exec("SELECT at FROM timers WHERE kind = 'exec'").toArray()[0]?.at,
    );
    expect(next).toBeGreaterThan(Date.now());
    vi.useRealTimers();
    const { body } = await parallel("d8", { action: "await", job_ids: [id] });
    expect(body.jobs[0].state).toBe("success");
    expect(await toolCalls(id)).toHaveLength(1);
  });
});

describe("the fast path", () => {
  // Calls handed to runner objects: nothing of the queues is on their path.
  beforeEach(() => configure(toolConfig({ limits: CALLS_IN_OBJECTS })));

  it("starts jobs without waiting for the queue, and the queue copy is still sent", async () => {
    await parallel("d6", { tool_calls: [call("echo", { warm: 1 })] });
    const { sent } = await degradeChat("d6", { queue: "drop" });
    const { body } = await parallel("d6", {
      tool_calls: [call("echo", { fast: 1 }), call("wait", { seconds: 0.01 })],
      timeout: 5,
    });
    expect(body.status).toBe("success");
    // The built-in wait makes no call, so it gets no queue copy.
    expect(sent).toEqual([{ tenant: "acme", chat_id: "d6", jobs: [{ job_id: body.jobs[0].job_id, attempt: 1 }] }]);
  });

  it("runs the built-in wait in the chat even while the queue hangs", async () => {
    await parallel("d6", { tool_calls: [call("echo", { warm: 1 })] });
    await degradeChat("d6", { queue: "hang" });
    const { body } = await parallel("d6", {
      tool_calls: [call("wait", { seconds: 0.05 }), call("wait", { seconds: 0.01 })],
      timeout: 5,
    });
    expect(body.jobs.map((j: any) => [j.state, j.result])).toEqual([
      ["success", "Waited 0.05 seconds."],
      ["success", "Waited 0.01 seconds."],
    ]);
  });

  it("a call whose hand-over to its runner object failed is left to its lease: recovered once it lapses", async () => {
    await parallel("d6", { tool_calls: [call("echo", { warm: 1 })] });
    const { started } = await degradeChat("d6", { fastPath: "refuse" });
    const { body } = await parallel("d6", { tool_calls: [call("echo", { again: 1 })], wait: false });
    const id = body.jobs[0].job_id;
    await eventually(async () => started.length === 0 && (await jobRow("d6", id))?.state === "running");
    // The object may have the call after all: the claim stays on it, and its lease decides.
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await jobRow("d6", id))?.runner).toBe(0);
    expect(await toolCalls(id)).toHaveLength(0);
    await evictDurableObject(chatObject("d6")).catch(() => abortAllDurableObjects()); // the objects answer again
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + RUNNER_LAPSES_AFTER_MS + EXEC_HEARTBEAT_MS);
    expect(await runDurableObjectAlarm(chatObject("d6"))).toBe(true);
    vi.useRealTimers();
    expect(await jobInState("d6", id, "success")).toMatchObject({ result: '{"again":1}' });
    // The first attempt counted as sent when it was claimed; a read-only call is sent again as the next.
    expect((await toolCalls(id)).map((c) => JSON.parse(c.body).attempt)).toEqual([2]);
  });
});

describe("lost dispatch", () => {
  it("a job whose queue message was lost is sent again by the watchdog", async () => {
    await parallel("d4", { tool_calls: [call("echo", { warm: 1 })] }); // the chat exists
    await degradeChat("d4", { queue: "drop" });
    const id = await startedJob("d4", call("echo", { lost: 1 }));
    expect((await jobRow("d4", id))?.state).toBe("pending");
    await evictDurableObject(chatObject("d4")).catch(() => abortAllDurableObjects()); // real queue binding back
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 16_000);
    expect(await runDurableObjectAlarm(chatObject("d4"))).toBe(true);
    vi.useRealTimers();
    const row = await jobInState("d4", id, "success");
    expect(row.result).toBe('{"lost":1}');
    expect(await toolCalls(id)).toHaveLength(1);
  });

  it("the dead-letter consumer fails a job nobody could start for three watchdog periods", async () => {
    await parallel("d4", { tool_calls: [call("echo")] });
    await degradeChat("d4", { queue: "drop" });
    const id = await startedJob("d4", call("echo"));
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + UNDELIVERABLE_AFTER_MS);
    const result = await deliver("jobs-dlq", [message("d4", id)]);
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(await jobRow("d4", id)).toMatchObject({
      state: "error",
      error: "Job could not be dispatched; start it again.",
    });
  });

  it("a job dead-lettered while its chat was unreachable for seconds (a deploy) is left to the watchdog, which starts it", async () => {
    await parallel("d8", { tool_calls: [call("echo", { warm: 1 })] });
    await degradeChat("d8", { queue: "drop" });
    const id = await startedJob("d8", call("echo", { late: 1 }));
    // The queue's 5 retries, 1 s apart, all failed: the message is dead-lettered 6 s after the job was accepted.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 6_000);
    await deliver("jobs-dlq", [message("d8", id)]);
    expect((await jobRow("d8", id))?.state).toBe("pending");
    await evictDurableObject(chatObject("d8")).catch(() => abortAllDurableObjects()); // the chat is back
    vi.setSystemTime(Date.now() + 16_000);
    expect(await runDurableObjectAlarm(chatObject("d8"))).toBe(true);
    vi.useRealTimers();
    expect((await jobInState("d8", id, "success")).result).toBe('{"late":1}');
    expect(await toolCalls(id)).toHaveLength(1);
  });

  it("the watchdog re-sends over 100 stuck jobs in sends of at most 100 (production refuses more)", async () => {
    await configure(toolConfig({ limits: { max_active_jobs_per_chat: 200 } }));
    await parallel("d9", { tool_calls: [call("echo", { warm: 1 })] });
    const { sent } = await degradeChat("d9", { queue: "drop" });
    const ids: string[] = [];
    // Each batch of 4 is one `calls` message (its queue copy), lost: all 120 calls stay pending.
    for (let b = 0; b < 30; b++) {
      const { body } = await parallel("d9", {
        tool_calls: Array.from({ length: 4 }, (_, i) => call("echo", { b, i })),
        wait: false,
      });
      ids.push(...body.jobs.map((j: { job_id: string }) => j.job_id));
    }
    await eventually(async () => sent.length === 30); // each batch's `calls` message, sent after its answer
    sent.length = 0;
    const sizes: number[] = [];
    await swapEnv(chatObject("d9"), (real) => ({
      JOBS: {
        ...real.JOBS,
        sendBatch: async (messages: { body: { job_id: string } }[]) => {
          sizes.push(messages.length);
          if (messages.length > 100) throw new Error("sendBatch takes at most 100 messages");
          sent.push(...messages.map((m) => m.body));
        },
      },
    }));
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 16_000);
    expect(await runDurableObjectAlarm(chatObject("d9"))).toBe(true);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    // One message per 100 jobs at most: 121 stuck jobs (the warm-up's too, once evicted) in two.
    const named = sent.map((m) => (m as { jobs: { job_id: string }[] }).jobs.map((j) => j.job_id));
    expect(named.length).toBe(2);
    expect(Math.max(...named.map((n) => n.length))).toBeLessThanOrEqual(100);
    expect(new Set(named.flat())).toEqual(new Set(ids));
  });
});
