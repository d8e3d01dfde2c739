/**
 * Races found in review, each pinned by a test: the alarm written with the
 * jobs, a heartbeat firing while a claim is in flight, a cancel landing while
 * a granted claim travels back, a claim that never completed, the fast path
 * without a queue copy, and egress rules re-checked when a job runs.
 */
import { chatLimits } from "../../src/config/chat-limits";
import { defaultConfig } from "../../src/config/schema";
import { abortAllDurableObjects, evictDurableObject, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recordKey } from "../../durable-objects/runner/run-record";
import { degradeChat, message, runnerObject, runRecord, strandedJob, swapEnv } from "../faults";
import { api, call, chatObject, configure, eventually, jobRow, parallel, toolCalls, jobInState } from "../helpers";

beforeEach(() => configure());
afterEach(() => reset());

/** Makes the runner's claims wait for `release()`; `grant` decides whether the real claim runs first. */
async function holdClaims(chat: string, jobId: string, grant: "before" | "after") {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let calls = 0;
  await swapEnv(runnerObject(chat, jobId), (real) => ({
    CHAT: {
      getByName: (name: string) => {
        const stub = real.CHAT.getByName(name);
        return {
          claimJob: async (id: string, attempt: number) => {
            calls++;
            if (grant === "before") {
              const claim = await stub.claimJob(id, attempt);
              await released;
              return claim;
            }
            await released;
            return stub.claimJob(id, attempt);
          },
          completeJob: (...a: Parameters<typeof stub.completeJob>) => stub.completeJob(...a),
        };
      },
    },
  }));
  return { release, claims: () => calls };
}

describe("the chat's alarm", () => {
  it("is set with the admitted jobs, even if the object resets while the queue send hangs", async () => {
    await parallel("r1", { tool_calls: [call("echo")] });
    await runInDurableObject(chatObject("r1"), (_i, s) => s.storage.deleteAlarm());
    await degradeChat("r1", { queue: "hang" });
    const request = parallel("r1", { tool_calls: [call("echo")], wait: false });
    await eventually(() => runInDurableObject(chatObject("r1"), (_i, s) => s.storage.getAlarm()));
    await abortAllDurableObjects();
    await request.catch(() => {});
    const alarm = await runInDurableObject(chatObject("r1"), (_i, s) => s.storage.getAlarm());
    expect(alarm).not.toBeNull();
  });

  it("is repaired when an instance starts and finds timers but no alarm", async () => {
    const id = await strandedJob("r1", call("echo"));
    await runInDurableObject(chatObject("r1"), (_i, s) => s.storage.deleteAlarm());
    await abortAllDurableObjects();
    const alarm = await runInDurableObject(chatObject("r1"), (_i, s) => s.storage.getAlarm());
    const deadline = (await jobRow("r1", id))!.deadline_at as number;
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(deadline);
  });
});

describe("a runner's claim in flight", () => {
  it("a heartbeat firing meanwhile does not claim and call the tool a second time", async () => {
    const id = await strandedJob("r2", call("echo", { once: 1 }));
    const hold = await holdClaims("r2", id, "before");
    const started = runnerObject("r2", id).start(message("r2", id));
    await eventually(async () => hold.claims() === 1);
    await runDurableObjectAlarm(runnerObject("r2", id));
    hold.release();
    await started;
    await eventually(async () => (await jobRow("r2", id))?.state === "success");
    expect(hold.claims()).toBe(1);
    expect(await toolCalls(id)).toHaveLength(1);
  });

  it("a cancel landing while the granted claim travels back means the tool is never called", async () => {
    const id = await strandedJob("r2", call("echo", { never: 1 }));
    const hold = await holdClaims("r2", id, "before");
    const started = runnerObject("r2", id).start(message("r2", id));
    await eventually(async () => (await jobRow("r2", id))?.state === "running");
    await evictChatAndCancel("r2", id);
    hold.release();
    expect(await started).toBe("finished");
    expect(await toolCalls(id)).toHaveLength(0);
    expect((await jobRow("r2", id))?.state).toBe("cancelled");
  });

  it("a claim that never completed is driven again by the next delivery", async () => {
    const id = await strandedJob("r2", call("echo", { later: 1 }));
    await runInDurableObject(runnerObject("r2", id), (_i, s) => {
      s.storage.kv.put(recordKey(id), { message: message("r2", id), claim: null, attempt: 1, sent: 0 });
    });
    await abortAllDurableObjects(); // the instance that was claiming is gone; its record stays
    expect(await runnerObject("r2", id).start(message("r2", id))).toBe("started");
    await eventually(async () => (await jobRow("r2", id))?.state === "success");
    expect(await toolCalls(id)).toHaveLength(1);
  });
});

describe("the fast path", () => {
  it("does not run when the queue copy could not be sent", async () => {
    await parallel("r3", { tool_calls: [call("echo")] });
    const { started } = await degradeChat("r3", { queue: "fail", runners: "record" });
    const res = await parallel("r3", { tool_calls: [call("echo")], wait: false });
    expect(res.status).toBe(200);
    expect(started).toEqual([]);
    expect((await jobRow("r3", res.body.jobs[0].job_id))?.state).toBe("pending");
  });
});

describe("egress at run time", () => {
  it("a stored tool URL no longer allowed fails the job instead of being called", async () => {
    const id = await strandedJob("r4", call("echo", { blocked: 1 }));
    await swapEnv(runnerObject("r4", id), () => ({ ALLOW_PRIVATE_EGRESS: "false" }));
    await runnerObject("r4", id).start(message("r4", id));
    const row = await jobInState("r4", id, "error");
    expect(row.error).toMatch(/^The tool URL must use https:; outbound calls there are not allowed\.$/);
    expect(await toolCalls(id)).toHaveLength(0);
  });
});

async function evictChatAndCancel(chat: string, jobId: string) {
  await evictDurableObject(chatObject(chat)); // a fresh instance, with its real runner binding back
  const res = await parallel(chat, { action: "cancel", job_ids: [jobId] });
  expect(res.body.jobs[0].state).toBe("cancelled");
  // The cancel aborts the runner (best effort, in the chat's waitUntil): wait until its record is gone.
  await eventually(async () => (await runRecord(jobId)) === undefined);
  expect((await api(`/v1/chats/${chat}/jobs/${jobId}`)).status).toBe(200);
}

describe("a stop that arrives before the hand-off", () => {
  it("leaves a stopped turn that a late hand-off cannot start, and the chat is still purged", async () => {
    const child = chatObject("sub-tombstone");
    await child.stopTurn({ tenant: "acme", chat_id: "sub-tombstone", parent_job_id: "callsubordin-x", parent_chat_id: "p" });
    const late = await child.beginTurn({
      tenant: "acme", chat_id: "sub-tombstone", parent_chat_id: "p", root_chat_id: "p", parent_job_id: "callsubordin-x",
      lease: "l", deadline_at: Date.now() + 60_000, level: 1, profile: "default", name: "n", message: "m", attachments: [],
      limits: chatLimits(defaultConfig()),
    });
    expect(late).toBe("duplicate");
    const { vi } = await import("vitest");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 8 * 24 * 3600_000); // past the default retention
    expect(await runDurableObjectAlarm(child)).toBe(true);
    vi.useRealTimers();
    const tables = await runInDurableObject(child, (_i, s) =>
      s.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf%'").toArray(),
    );
    expect(tables).toEqual([]);
  });
});
