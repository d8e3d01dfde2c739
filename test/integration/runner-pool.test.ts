/**
 * Pooled runners: one runner object holds several jobs at once, each with its
 * own record, recovered on its own by the runner's one heartbeat.
 */
import { abortAllDurableObjects, env, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RUNNER_POOL_SIZE, runnerName, runnerSlot } from "../../src/names";
import { message, runRecord, startedJob, strandedJob, swapEnv } from "../faults";
import { RunnerDO } from "../../durable-objects/runner/RunnerDO";
import { recordKey } from "../../durable-objects/runner/run-record";
import { call, chatObject, configure, eventually, jobRow, parallel, toolCalls } from "../helpers";

beforeEach(() => configure());
afterEach(() => reset());

/** Any runner can hold any job; the tests pick one object and hand it jobs directly. */
const pooled = () => env.RUNNER.getByName(runnerName("acme", "any-job-id"));
const alarmOf = (stub: DurableObjectStub) => runInDurableObject(stub, (_i, s) => s.storage.getAlarm());

describe("the runner pool", () => {
  it("spreads job ids over all RUNNER_POOL_SIZE slots, with a mapping that never changes between deploys", () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `echo-${i.toString(36).padStart(12, "x")}`);
    expect(new Set(ids.map(runnerSlot)).size).toBe(RUNNER_POOL_SIZE);
    // Pinned: a job in flight across a deploy must reach the runner that holds its record.
    expect(["echo-abcdefghijkl", "sleep-AAAAAAAAAAAA", "call_subordinate-x"].map(runnerSlot)).toEqual([3, 27, 21]);
    expect(runnerName("acme", "echo-abcdefghijkl")).toBe("runner/acme/3");
  });

  it("recovers each of several jobs a lost runner instance held, by that job's own attempt rules", async () => {
    const read = await strandedJob("rp1", call("sleep", { ms: 1500 }));
    const write = await startedJob("rp1", call("hang_write"));
    const runner = pooled();
    await runner.start(message("rp1", read));
    await runner.start(message("rp1", write));
    await eventually(async () => (await toolCalls(read)).length === 1 && (await toolCalls(write)).length === 1);
    await abortAllDurableObjects(); // both calls die with the instance; both records stay
    const recoveries: string[] = [];
    const original = RunnerDO.prototype.recoverJob;
    RunnerDO.prototype.recoverJob = function (jobId: string) {
      recoveries.push(jobId);
      return original.call(this, jobId);
    };
    try {
      expect(await runDurableObjectAlarm(pooled())).toBe(true);
    } finally {
      RunnerDO.prototype.recoverJob = original;
    }
    // One invocation per recovered call, so production's per-invocation connection limit holds.
    expect(recoveries.sort()).toEqual([read, write].sort());
    const { body } = await parallel("rp1", { action: "await", job_ids: [read, write], timeout: 10 });
    expect(body.jobs.map((j: { state: string }) => j.state)).toEqual(["success", "error"]);
    expect(body.jobs[1].error).toBe("Outcome unknown: the tool may have run; not retried.");
    expect((await toolCalls(read)).map((c) => JSON.parse(c.body).attempt)).toEqual([1, 2]);
    expect(await toolCalls(write)).toHaveLength(1);
    expect([await runRecord(read), await runRecord(write)]).toEqual([undefined, undefined]);
  });

  it("recovers a record left by a runner from before the pool, in the object that holds it", async () => {
    const id = await strandedJob("rp4", call("echo", { legacy: 1 }));
    const claim = await chatObject("rp4").claimJob(id, 1);
    expect(claim.status).toBe("claimed");
    const legacy = env.RUNNER.getByName(`job/acme/rp4/${id}`);
    await runInDurableObject(legacy, async (_i, s) => {
      s.storage.kv.put("run", { message: message("rp4", id), claim, attempt: 1, sent: 0 });
      await s.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(legacy)).toBe(true);
    await eventually(async () => (await jobRow("rp4", id))?.state === "success");
    expect(await toolCalls(id)).toHaveLength(1);
    expect(await runInDurableObject(legacy, (_i, s) => [...s.storage.kv.list()].length)).toBe(0);
  });

  it("arms its heartbeat when a duplicate finds a record no execution holds (its instance died before arming)", async () => {
    const id = await strandedJob("rp5", call("echo", { orphan: 1 }));
    const claim = await chatObject("rp5").claimJob(id, 1);
    const runner = pooled();
    await runInDurableObject(runner, (_i, s) => s.storage.kv.put(recordKey(id), { message: message("rp5", id), claim, attempt: 1, sent: 0 }));
    expect(await alarmOf(runner)).toBeNull();
    expect(await runner.start(message("rp5", id))).toBe("duplicate");
    expect(await alarmOf(runner)).not.toBeNull();
    expect(await runDurableObjectAlarm(runner)).toBe(true);
    await eventually(async () => (await jobRow("rp5", id))?.state === "success");
  });

  it("does not move its heartbeat later when more jobs arrive, so a stranded record is not postponed", async () => {
    const first = await strandedJob("rp2", call("sleep", { ms: 300 }));
    const runner = pooled();
    await runner.start(message("rp2", first));
    const armed = await alarmOf(runner);
    expect(armed).not.toBeNull();
    await new Promise((r) => setTimeout(r, 30));
    const second = await startedJob("rp2", call("sleep", { ms: 300 }));
    await runner.start(message("rp2", second));
    expect(await alarmOf(runner)).toBe(armed);
  });

  it("drops a duplicate of a job it finished without asking the chat again", async () => {
    const id = await strandedJob("rp3", call("echo", { once: 1 }));
    const runner = pooled();
    await runner.start(message("rp3", id));
    await eventually(async () => (await jobRow("rp3", id))?.state === "success");
    let claims = 0;
    await swapEnv(runner, (real) => ({
      CHAT: {
        getByName: (name: string) => {
          const chat = real.CHAT.getByName(name);
          return { claimJob: (...a: Parameters<typeof chat.claimJob>) => (claims++, chat.claimJob(...a)), completeJob: chat.completeJob.bind(chat) };
        },
      },
    }));
    expect(await runner.start(message("rp3", id))).toBe("duplicate");
    expect(claims).toBe(0);
    expect(await toolCalls(id)).toHaveLength(1);
  });
});
