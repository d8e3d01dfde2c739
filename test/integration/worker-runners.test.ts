/**
 * Worker runners (docs/architecture.md#where-a-call-runs): a call whose deadline a queue consumer
 * outlives waits in a `calls` consumer's invocation (or, within 25 s, one the chat starts), billed
 * for CPU only, not in an object. It is
 * claimed in the chat before it leaves, its runner renews its lease, a runner that stops renewing
 * is lost and its calls are recovered by the attempt rules, and a cancel reaches the call at the
 * runner's next renewal.
 */
import {
  abortAllDurableObjects,
  env,
  evictDurableObject,
  reset,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { RUNNER_OBJECTS } from "../../durable-objects/chat/jobs/call-placement";
import { EXEC_HEARTBEAT_MS } from "../../durable-objects/chat/storage/timers";
import worker, { DirectRunner } from "../../src/index";
import { OUTCOME_UNKNOWN_ERROR } from "../../src/core/jobs/job";
import { callRunnerName } from "../../src/core/objects/names";
import { RENEW_EVERY_MS, RUNNER_LAPSES_AFTER_MS, WORKER_RUNNER } from "../../src/core/runner/lease";
import { degradeChat, deliver, startedJob } from "../faults";
import {
  call,
  chatObject,
  configure,
  eventually,
  expectRecoveredAfterLoss,
  jobInState,
  jobRow,
  parallel,
  toolCalls,
  toolConfig,
  toolServer,
} from "../helpers";

afterEach(async () => {
  vi.useRealTimers();
  await reset();
});

const tracked = {
  name: "tracked",
  description: "held, counted",
  url: `${toolServer()}/tracked`,
  read_only: true,
  parameters: { type: "object" },
};
const overlap = async (group: string) =>
  ((await (await fetch(`${toolServer()}/__concurrency?group=${group}`)).json()) as { max_in_flight: number })
    .max_in_flight;
/** The most calls each runner object of the chat had waiting at once. */
const objectPeaks = (chat: string) =>
  Promise.all(
    Array.from({ length: RUNNER_OBJECTS }, (_, i) =>
      runInDurableObject(env.CALL_RUNNER.getByName(callRunnerName("acme", chat, i)), (o) => o.callMeter.peak),
    ),
  );

describe("calls whose deadline a queue consumer outlives", () => {
  it("all wait at once in Worker runners, none in an object", async () => {
    await configure(toolConfig({ tools: [tracked], limits: { max_calls: 32 } }));
    const chat = "runners-12";
    const { body } = await parallel(chat, {
      tool_calls: Array.from({ length: 12 }, (_, i) => call("tracked", { n: i, ms: 600, group: chat })),
      timeout: 20,
    });
    expect(body.status).toBe("success");
    expect(body.jobs.map((j: { result: string }) => j.result)).toEqual(
      Array.from({ length: 12 }, (_, i) => `tracked ${i}`),
    );
    expect(await overlap(chat)).toBe(12); // three runners of 4, all at once
    for (const job of body.jobs) expect((await jobRow(chat, job.job_id))?.runner).toBe(WORKER_RUNNER);
    expect(Math.max(...(await objectPeaks(chat)))).toBe(0);
  });

  it("are sent again by the dispatch watchdog when their `calls` message was lost, and then run in a runner once", async () => {
    await configure();
    const chat = "runners-lost-message";
    await parallel(chat, { tool_calls: [call("echo", { warm: 1 })] }); // the chat exists
    const { sent } = await degradeChat(chat, { queue: "drop" });
    const id = await startedJob(chat, call("echo", { lost: 1 }));
    // the `calls` message, dropped
    expect(sent).toEqual([expect.objectContaining({ jobs: [{ job_id: id, attempt: 1 }] })]);
    expect((await jobRow(chat, id))?.state).toBe("pending");
    await evictDurableObject(chatObject(chat)).catch(() => abortAllDurableObjects()); // the real queues back
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 16_000);
    expect(await runDurableObjectAlarm(chatObject(chat))).toBe(true);
    vi.useRealTimers();
    expect(await jobInState(chat, id, "success")).toMatchObject({ result: '{"lost":1}', runner: WORKER_RUNNER });
    expect(await toolCalls(id)).toHaveLength(1);
  });

  it("do not include one whose deadline a consumer would not outlive: that one runs in a runner object", async () => {
    await configure();
    const chat = "runners-long-deadline";
    const { body } = await parallel(chat, {
      tool_calls: [call("sleep", { ms: 300 }), call("sleep", { ms: 301 })],
      job_timeout: 1800,
      timeout: 20,
    });
    expect(body.status).toBe("success");
    for (const job of body.jobs) expect((await jobRow(chat, job.job_id))?.runner).toBe(0);
    expect((await objectPeaks(chat))[0]).toBe(2);
  });
});

/** Replaces `obj[name]` until the test's end. */
function swap<T extends object>(
  obj: T,
  name: string,
  make: (orig: (...a: unknown[]) => unknown) => (...a: unknown[]) => unknown,
) {
  const orig = (obj as Record<string, unknown>)[name] as (...a: unknown[]) => unknown;
  (obj as Record<string, unknown>)[name] = make(orig);
  onTestFinished(() => void ((obj as Record<string, unknown>)[name] = orig));
}

describe("calls whose deadline falls within an invocation's waitUntil grace", () => {
  it("wait in runners the chat starts itself: no `calls` message is on their path", async () => {
    // The `calls` consumer takes nothing: a call sent that way would never start.
    swap(
      worker,
      "queue",
      (orig) =>
        function (this: unknown, batch: MessageBatch, ...rest: unknown[]) {
          return batch.queue === "calls" ? undefined : orig.call(this, batch, ...rest);
        } as (...a: unknown[]) => unknown,
    );
    await configure(toolConfig({ tools: [tracked], limits: { max_calls: 32 } }));
    const chat = "direct-8";
    const { body } = await parallel(chat, {
      tool_calls: Array.from({ length: 8 }, (_, i) => call("tracked", { n: i, ms: 300, group: chat })),
      job_timeout: 20,
      timeout: 15,
    });
    expect(body.status).toBe("success");
    expect(await overlap(chat)).toBe(8); // two runners of 4, all at once
    for (const job of body.jobs) expect((await jobRow(chat, job.job_id))?.runner).toBe(WORKER_RUNNER);
    expect(Math.max(...(await objectPeaks(chat)))).toBe(0);
  });

  it("are recovered by the attempt rules when the hand-over fails: a side-effecting call ends outcome unknown, a read-only one is sent again", async () => {
    let failures = 1;
    swap(
      DirectRunner.prototype,
      "run",
      (orig) =>
        function (this: unknown, ...a: unknown[]) {
          if (failures-- > 0) throw new Error("runner unreachable");
          return orig.apply(this, a);
        },
    );
    const base = toolConfig();
    await configure({
      ...base,
      tools: [
        ...base.tools,
        {
          name: "echo_write",
          description: "echoes, not read-only",
          url: `${toolServer()}/echo`,
          parameters: { type: "object" },
        },
      ],
    });
    const chat = "direct-lost";
    const { body } = await parallel(chat, {
      tool_calls: [call("echo_write", { n: 1 }), call("echo", { n: 2 })],
      job_timeout: 20,
      timeout: 15,
    });
    const [write, read] = body.jobs as { job_id: string; state: string; error?: string }[];
    expect(write).toMatchObject({ state: "error", error: OUTCOME_UNKNOWN_ERROR });
    expect(read?.state).toBe("success");
    expect(await toolCalls(write!.job_id)).toHaveLength(0);
    expect((await toolCalls(read!.job_id)).map((c) => JSON.parse(c.body).attempt)).toEqual([2]);
  });
});

describe("calls for more invocations than hand over at once", () => {
  it("are claimed a group at a time as they are handed, never left claimed behind a slow hand-over", async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    let handed = 0;
    swap(
      DirectRunner.prototype,
      "run",
      (orig) =>
        async function (this: unknown, ...a: unknown[]) {
          // The first four hand-overs answer late; the fifth group waits for them.
          if (handed++ < 4) await slow;
          return orig.apply(this, a);
        },
    );
    await configure(toolConfig({ limits: { max_calls: 32 } }));
    const chat = "direct-chunks";
    const { body } = await parallel(chat, {
      tool_calls: Array.from({ length: 20 }, (_, i) => call("echo", { n: i })),
      job_timeout: 20,
      wait: false,
    });
    const ids = body.jobs.map((j: { job_id: string }) => j.job_id) as string[];
    await eventually(async () => handed === 4);
    // Groups of 4: the first four are claimed and on their way; the fifth is not claimed yet.
    const states = await Promise.all(ids.map(async (id) => (await jobRow(chat, id))!.state));
    expect(states.slice(0, 16).every((s) => s === "running")).toBe(true);
    expect(states.slice(16)).toEqual(["pending", "pending", "pending", "pending"]);
    release();
    for (const id of ids) await jobInState(chat, id, "success");
  });
});

describe("a hand-over to an invocation that keeps failing", () => {
  it("is tried again later each time (1 s, 2 s, 4 s …), not every second until the deadline", async () => {
    swap(DirectRunner.prototype, "run", () => () => {
      throw new Error("runner unreachable");
    });
    await configure();
    const chat = "direct-backoff";
    const { body } = await parallel(chat, { tool_calls: [call("echo", { n: 1 })], job_timeout: 20, wait: false });
    const id = body.jobs[0].job_id as string;
    await new Promise((r) => setTimeout(r, 5_500));
    // Tries at about 0, 1 and 3 s (the next at 7 s): each a new attempt of the read-only call, none sent.
    const { attempt, state } = (await jobRow(chat, id))!;
    expect(state).toBe("running");
    expect(attempt).toBeGreaterThanOrEqual(2);
    expect(attempt).toBeLessThanOrEqual(3);
    expect(await toolCalls(id)).toHaveLength(0);
    await parallel(chat, { action: "cancel", job_ids: [id] });
  }, 15_000);
});

/**
 * Two calls that never answer, started in `chat` and held by a runner: their job ids once both reached the
 * tool server.
 */
async function twoHeld(chat: string, tools: [string, string]): Promise<[string, string]> {
  await configure();
  const { body } = await parallel(chat, { tool_calls: tools.map((name) => call(name)), wait: false });
  const ids = body.jobs.map((j: { job_id: string }) => j.job_id) as [string, string];
  await eventually(async () => (await toolCalls(ids[0])).length === 1 && (await toolCalls(ids[1])).length === 1);
  return ids;
}

describe("a Worker runner", () => {
  it("that stops renewing is lost: a side-effecting call ends outcome unknown, a read-only one is sent again", async () => {
    const chat = "runner-lost";
    const [write, read] = await twoHeld(chat, ["hang_write", "hang"]);
    expect((await jobRow(chat, write))?.runner).toBe(WORKER_RUNNER);
    // Past the lapse with no renewal heard (the runner's timers run on real time): as if it had been lost.
    await expectRecoveredAfterLoss(chat, write, read, RUNNER_LAPSES_AFTER_MS + EXEC_HEARTBEAT_MS);
    // The first runner was alive after all: the read-only call left it under a new lease, so its
    // next renewal is refused and it drops attempt 1 while attempt 2 runs on.
    await eventually(async () => (await toolCalls(read))[0]!.closed_at !== undefined, RENEW_EVERY_MS + 3_000);
    expect((await jobRow(chat, read))?.state).toBe("running");
    expect((await toolCalls(read))[1]!.closed_at).toBeUndefined();
    await parallel(chat, { action: "cancel", job_ids: [read] });
  }, 20_000);

  it("renews the leases of the calls it holds, and stops a cancelled call at its next renewal", async () => {
    const chat = "runner-renews";
    const [cancelled, kept] = await twoHeld(chat, ["hang", "hang"]);
    const claimed = (await jobRow(chat, kept))!.renewed_at as number;
    await parallel(chat, { action: "cancel", job_ids: [cancelled] });
    // The runner cannot be told: it hears at its renewal, and drops the call it was waiting on.
    await eventually(async () => (await toolCalls(cancelled))[0]!.closed_at !== undefined, RENEW_EVERY_MS + 3_000);
    const kept_row = await jobRow(chat, kept);
    expect(kept_row?.state).toBe("running");
    expect(kept_row?.renewed_at).toBeGreaterThanOrEqual(claimed + RENEW_EVERY_MS - 100);
    expect((await toolCalls(kept))[0]!.closed_at).toBeUndefined();
    await parallel(chat, { action: "cancel", job_ids: [kept] });
  }, 20_000);
});

describe("the `calls` consumer", () => {
  /** A chat namespace whose claims fail `failures` times, then go to the real chat (claims only); and what the consumer sends again. */
  function rig(failures: number) {
    let claims = 0;
    const resent: { body: unknown; options: unknown }[] = [];
    const CHAT = {
      getByName: (name: string) => {
        const real = env.CHAT.getByName(name);
        return {
          claimForRunner: (ids: string[]) =>
            ++claims <= failures ? Promise.reject(new Error("chat unreachable")) : real.claimForRunner(ids),
        };
      },
    };
    const CALLS = { send: async (body: unknown, options: unknown) => void resent.push({ body, options }) };
    return { CHAT, CALLS, resent, claims: () => claims };
  }

  it("acks a message and runs the calls claimed for it", async () => {
    await configure();
    const chat = "calls-ack-first";
    await parallel(chat, { tool_calls: [call("echo", { warm: 1 })] }); // the chat exists
    const { sent } = await degradeChat(chat, { queue: "drop" });
    const id = await startedJob(chat, call("echo", { first: 1 }));
    const { CALLS, resent } = rig(0);
    const result = await deliver("calls", sent, { CALLS });
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(resent).toEqual([]);
    expect(await jobInState(chat, id, "success")).toMatchObject({ result: '{"first":1}', runner: WORKER_RUNNER });
  });

  it("sends a message again a second later when its claim failed, and leaves it to the chat's watchdog after 4", async () => {
    await configure();
    const chat = "calls-claim-fails";
    await parallel(chat, { tool_calls: [call("echo", { warm: 1 })] }); // the chat exists
    const { sent } = await degradeChat(chat, { queue: "drop" });
    const id = await startedJob(chat, call("echo", { again: 1 }));
    const { CHAT, CALLS, resent, claims } = rig(Infinity);
    expect((await deliver("calls", sent, { CHAT, CALLS })).explicitAcks).toEqual(["m0"]);
    expect(resent).toEqual([{ body: { ...(sent[0] as object), resends: 1 }, options: { delaySeconds: 1 } }]);
    await deliver("calls", [resent[0]!.body], { CHAT, CALLS });
    expect(resent.at(-1)?.body).toMatchObject({ resends: 2 });
    await deliver("calls", [{ ...(sent[0] as object), resends: 4 }], { CHAT, CALLS });
    expect(resent).toHaveLength(2); // the fourth send was the last
    expect(claims()).toBe(3);
    // Nothing was claimed: the job waits for its chat's watchdog, and then runs once.
    expect((await jobRow(chat, id))?.state).toBe("pending");
    await deliver("calls", sent);
    expect(await jobInState(chat, id, "success")).toMatchObject({ result: '{"again":1}' });
    expect(await toolCalls(id)).toHaveLength(1);
  });
});
