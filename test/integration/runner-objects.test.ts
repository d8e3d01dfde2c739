/**
 * Runner objects (docs/architecture.md#where-a-call-runs): the host of calls whose deadline no Worker
 * invocation can hold. No object ever has more than 4 calls waiting for headers (an MCP call counts
 * 2), yet every call of a batch runs at once; one lost mid-call stops renewing its leases and is
 * recovered by the attempt rules, and a cancel reaches it at once.
 *
 * Each object's `callMeter` counts what it really had waiting; the tool server counts how many
 * calls overlapped. Local workerd enforces no limit, so these counts are the only guard. Every batch
 * here has a deadline past a queue consumer's 15 minutes.
 */
import {
  abortAllDurableObjects,
  env,
  evictDurableObject,
  reset,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RUNNER_OBJECTS } from "../../durable-objects/chat/jobs/call-placement";
import type { CallRunnerDO } from "../../durable-objects/runner/CallRunnerDO";
import { EXEC_HEARTBEAT_MS } from "../../durable-objects/chat/storage/timers";
import { callRunnerName } from "../../src/core/objects/names";
import { RUNNER_LAPSES_AFTER_MS } from "../../src/core/runner/lease";
import { CALLS_PER_OBJECT } from "../../src/core/tools/call-meter";
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
const docs = (instance: string) => ({ name: "docs", url: `${toolServer()}/mcp/${instance}`, headers: {} });
const runnerObject = (chat: string, index: number) => env.CALL_RUNNER.getByName(callRunnerName("acme", chat, index));
const holding = (chat: string, index: number, ids: string[]) =>
  runInDurableObject(runnerObject(chat, index), (o: CallRunnerDO) => o.runner.holding(ids));
/** A deadline no Worker invocation outlives: these calls run in the chat's runner objects. */
const IN_OBJECTS = 1800;
const overlap = async (group: string) =>
  ((await (await fetch(`${toolServer()}/__concurrency?group=${group}`)).json()) as { max_in_flight: number })
    .max_in_flight;

/** The most calls each runner object of the chat had waiting at once, in order. */
function peaks(chat: string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: RUNNER_OBJECTS }, (_, i) =>
      runInDurableObject(runnerObject(chat, i), (o: CallRunnerDO) => o.callMeter.peak),
    ),
  );
}
const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);

describe("a batch bigger than one object's budget", () => {
  it.each([8, 16, 32])("runs all %i calls at once with at most 4 waiting in any object", async (n) => {
    await configure(toolConfig({ tools: [tracked], limits: { max_calls: 32 } }));
    const chat = `objects-${n}`;
    const { body } = await parallel(chat, {
      tool_calls: Array.from({ length: n }, (_, i) => call("tracked", { n: i, ms: 600, group: chat })),
      timeout: 20,
      job_timeout: IN_OBJECTS,
    });
    expect(body.status).toBe("success");
    expect(body.jobs.map((j: { result: string }) => j.result)).toEqual(
      Array.from({ length: n }, (_, i) => `tracked ${i}`),
    );
    expect(await overlap(chat)).toBe(n); // nothing waited for a slot
    const p = await peaks(chat);
    expect(Math.max(...p)).toBe(CALLS_PER_OBJECT);
    expect(sum(p)).toBe(n); // every call was counted where it ran
  });

  it("holds for batches started at the same moment in one chat", async () => {
    await configure(toolConfig({ tools: [tracked], limits: { max_calls: 32 } }));
    const chat = "objects-together";
    const batch = (b: number) =>
      parallel(chat, {
        tool_calls: Array.from({ length: 8 }, (_, i) => call("tracked", { n: b * 10 + i, ms: 600, group: chat })),
        timeout: 20,
        job_timeout: IN_OBJECTS,
      });
    const answers = await Promise.all([batch(1), batch(2), batch(3)]);
    expect(answers.map((a) => a.body.status)).toEqual(["success", "success", "success"]);
    expect(await overlap(chat)).toBe(24);
    const p = await peaks(chat);
    expect(Math.max(...p)).toBeLessThanOrEqual(CALLS_PER_OBJECT);
    expect(sum(p)).toBe(24);
  });

  it("counts an MCP call as 2: mixed with plain calls, no object holds more than 4", async () => {
    await configure(toolConfig({ tools: [tracked], mcp_servers: [docs("objects")], limits: { max_calls: 32 } }));
    const chat = "objects-mcp";
    const calls = Array.from({ length: 16 }, (_, i) =>
      i % 2 ? call("tracked", { n: i, ms: 600, group: chat }) : call("docs__slow", { ms: 600 }),
    );
    const { body } = await parallel(chat, { tool_calls: calls, timeout: 20, job_timeout: IN_OBJECTS });
    expect(body.status).toBe("success");
    const p = await peaks(chat);
    expect(Math.max(...p)).toBeLessThanOrEqual(CALLS_PER_OBJECT);
    // 8 MCP calls count 16 and 8 plain ones 8: all 24 were placed and counted at once.
    expect(sum(p)).toBe(24);
    expect(await overlap(chat)).toBe(8);
  });
});

describe("a call in a runner object", () => {
  it("is recovered by the attempt rules when its object is lost (a deploy): a side-effecting call ends outcome unknown, a read-only one is sent again", async () => {
    await configure();
    const chat = "object-lost";
    const { body } = await parallel(chat, {
      tool_calls: [call("hang_write"), call("hang")],
      wait: false,
      job_timeout: IN_OBJECTS,
    });
    const [write, read] = body.jobs.map((j: { job_id: string }) => j.job_id);
    await eventually(async () => (await toolCalls(write)).length === 1 && (await toolCalls(read)).length === 1);
    expect((await jobRow(chat, write))?.runner).toBe(0);
    await abortAllDurableObjects(); // a deploy: the object and its calls are gone, and nothing renews their leases
    await expectRecoveredAfterLoss(chat, write, read, RUNNER_LAPSES_AFTER_MS + EXEC_HEARTBEAT_MS);
    await parallel(chat, { action: "cancel", job_ids: [read] });
  });

  it("is left alone while its object renews its lease, however the chat fared", async () => {
    await configure();
    const chat = "object-kept";
    const { body } = await parallel(chat, {
      tool_calls: [call("sleep", { ms: 1500 })],
      wait: false,
      job_timeout: IN_OBJECTS,
    });
    const id = body.jobs[0].job_id;
    await eventually(async () => (await toolCalls(id)).length === 1);
    await evictDurableObject(chatObject(chat)).catch(() => {}); // the chat forgets what it handed out
    vi.useFakeTimers({ toFake: ["Date"] });
    // its heartbeat is due, the lease not lapsed: the claim counts as a renewal
    vi.setSystemTime(Date.now() + EXEC_HEARTBEAT_MS);
    expect(await runDurableObjectAlarm(chatObject(chat))).toBe(true);
    vi.useRealTimers();
    expect((await jobInState(chat, id, "success")).result).toBe("slept 1500");
    expect(await toolCalls(id)).toHaveLength(1);
  });

  it("stops when the chat cancels its job", async () => {
    await configure();
    const chat = "object-cancel";
    const { body } = await parallel(chat, { tool_calls: [call("hang")], wait: false, job_timeout: IN_OBJECTS });
    const id = body.jobs[0].job_id;
    await eventually(async () => (await toolCalls(id)).length === 1);
    expect(await holding(chat, 0, [id])).toEqual([id]);
    await parallel(chat, { action: "cancel", job_ids: [id] });
    await eventually(async () => (await holding(chat, 0, [id])).length === 0); // at once, not at a renewal
    expect((await jobRow(chat, id))?.state).toBe("cancelled");
  });
});

describe("a runner object handed a job it holds under an older claim", () => {
  it("stops the old copy, which can report nothing, and runs the new one", async () => {
    const group = "object-reclaimed";
    const handed = (lease: string, attempt: number) => ({
      tenant: "acme",
      chat_id: group,
      lease,
      batch_id: `batch-${group}`,
      weight: 1,
      target: {
        kind: "http_tool" as const,
        url: `${toolServer()}/tracked`,
        secret: "whsec_dGVzdC1zZWNyZXQtZm9yLXRvb2xz",
        max_response_bytes: 65_536,
        secrets: [],
      },
      call: {
        job_id: "tracked-again",
        chat_id: group,
        tool_name: "tracked",
        tool_args: JSON.stringify({ n: attempt, ms: 1_500, group }),
        read_only: true,
        deadline_at: Date.now() + 20_000,
        attempt,
      },
    });
    const object = runnerObject(group, 0);
    await object.run([handed("old", 1)]);
    await eventually(async () => (await toolCalls("tracked-again")).length === 1);
    await object.run([handed("old", 1)]); // the same claim again changes nothing
    await object.run([handed("new", 2)]);
    await eventually(async () => (await toolCalls("tracked-again")).length === 2);
    const [first, second] = await toolCalls("tracked-again");
    expect(JSON.parse(first!.body).attempt).toBe(1);
    expect(JSON.parse(second!.body).attempt).toBe(2);
    // the old copy stopped
    await eventually(async () => (await toolCalls("tracked-again"))[0]!.closed_at !== undefined);
    expect(await holding(group, 0, ["tracked-again"])).toEqual(["tracked-again"]); // the new one runs on
  });
});

describe("a runner object handed more than its budget", () => {
  it("runs 4 at a time and the rest in order as calls end, whatever the chat believed of its load", async () => {
    const group = "object-queue";
    const hand = Array.from({ length: 6 }, (_, i) => ({
      tenant: "acme",
      chat_id: group,
      lease: `lease-${i}`,
      batch_id: `batch-${group}`,
      weight: 1,
      target: {
        kind: "http_tool" as const,
        url: `${toolServer()}/tracked`,
        secret: "whsec_dGVzdC1zZWNyZXQtZm9yLXRvb2xz",
        max_response_bytes: 65_536,
        secrets: [],
      },
      call: {
        job_id: `tracked-q${i}`,
        chat_id: group,
        tool_name: "tracked",
        tool_args: JSON.stringify({ n: i, ms: 400, group }),
        read_only: true,
        deadline_at: Date.now() + 20_000,
        attempt: 1,
      },
    }));
    const ids = hand.map((h) => h.call.job_id);
    await runnerObject(group, 0).run(hand);
    expect(await holding(group, 0, ids)).toHaveLength(6);
    // Each call's outcome goes to a chat that never claimed it (stale), so the object lets it go.
    await eventually(async () => (await holding(group, 0, ids)).length === 0, 10_000);
    expect(await overlap(group)).toBe(CALLS_PER_OBJECT);
    expect(await runInDurableObject(runnerObject(group, 0), (o: CallRunnerDO) => o.callMeter.peak)).toBe(
      CALLS_PER_OBJECT,
    );
    // The two over the budget left only once the first four had ended (each is held 400 ms).
    const arrived = await Promise.all(
      hand.map(async (h) => ((await toolCalls(h.call.job_id))[0] as unknown as { at: number }).at),
    );
    expect(Math.min(...arrived.slice(4))).toBeGreaterThanOrEqual(Math.max(...arrived.slice(0, 4)) + 300);
  });
});
