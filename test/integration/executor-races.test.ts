/**
 * Races found in review, each pinned by a test: the alarm written with the
 * jobs, two invocations taking the same job, a cancel landing while a job's
 * target is looked up, the fast path without a queue copy, and egress rules
 * re-checked when a job runs.
 */
import { chatLimits } from "../../src/core/config/chat-limits";
import { defaultConfig } from "../../src/core/config/schema";
import { abortAllDurableObjects, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { degradeChat, deliver, strandedJob, swapEnv } from "../faults";
import { forgetTenants } from "../../src/core/objects/tenant-cache";
import { call, chatObject, configure, eventually, jobRow, parallel, toolCalls, jobInState } from "../helpers";
import { createTable } from "../../durable-objects/chat/storage/schema";

beforeEach(() => configure());
afterEach(() => reset());

/** Makes the chat's tool-target lookups wait for `release()` (the await between reading a job and claiming it). */
async function holdTargets(chat: string) {
  forgetTenants(); // nothing kept in the isolate: the lookup goes to the TenantDO
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let lookups = 0;
  await swapEnv(chatObject(chat), (real) => ({
    TENANT: {
      getByName: (name: string) => {
        const stub = real.TENANT.getByName(name);
        return {
          runTargets: async (tools: string[]) => {
            lookups++;
            await released;
            return stub.runTargets(tools);
          },
        };
      },
    },
  }));
  return { release, lookups: () => lookups };
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

describe("a timer whose handler throws on every run", () => {
  it("leaves the chat's other timers working: the deadline behind it still ends its job", async () => {
    const { vi } = await import("vitest");
    const id = await strandedJob("r9", call("echo"));
    // A turn whose stored state cannot be read: its idle check throws every time it runs, and it is
    // due before everything else.
    await runInDurableObject(chatObject("r9"), (_i, st) => {
      createTable(st.storage.sql, "turns"); // a chat made since v5 creates it with its first turn
      st.storage.sql.exec(
        `INSERT INTO turns (parent_job_id, parent_chat_id, lease, deadline_at, state, steps, awaiting, usage, outcome, created_at, progress_at)
         VALUES ('broken', 'p', 'l', ?, 'running', 0, '{not json', '{}', NULL, 0, 0)`,
        Date.now() + 10_000_000,
      );
      st.storage.sql.exec(`INSERT INTO timers (kind, ref, at) VALUES ('idle', 'broken', 1)`);
    });
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime((await jobRow("r9", id))!.deadline_at + 1000); // past the job's deadline
      await runDurableObjectAlarm(chatObject("r9")).catch(() => {});
      expect((await jobRow("r9", id))!.state).toBe("timeout");
      // The failing timer was put off, not dropped, and the alarm is armed for it.
      const { timers, alarm } = await runInDurableObject(chatObject("r9"), async (_i, st) => ({
        timers: st.storage.sql
          .exec<{ kind: string; ref: string; at: number }>("SELECT kind, ref, at FROM timers")
          .toArray(),
        alarm: await st.storage.getAlarm(),
      }));
      expect(timers.find((t) => t.kind === "idle" && t.ref === "broken")!.at).toBeGreaterThan(Date.now());
      expect(alarm).not.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});

/** A queue copy of one job reaching its chat, as the `jobs` consumer hands it over. */
const takeCopy = (chat: string, id: string) =>
  chatObject(chat)
    .takeQueued([id])
    .then(([answer]) => answer);

describe("two invocations taking the same job", () => {
  it("two queue copies arriving while the first looks up its target: the call is sent to a runner once, and called once", async () => {
    const id = await strandedJob("r2", call("echo", { once: 1 }));
    const hold = await holdTargets("r2");
    const first = takeCopy("r2", id);
    const second = takeCopy("r2", id);
    await eventually(async () => hold.lookups() === 2);
    hold.release();
    expect([await first, await second].sort()).toEqual(["duplicate", "sent"]);
    await jobInState("r2", id, "success");
    expect(await toolCalls(id)).toHaveLength(1);
  });

  it("a cancel landing while the target is looked up means the tool is never called", async () => {
    const id = await strandedJob("r2", call("echo", { never: 1 }));
    const hold = await holdTargets("r2");
    const taking = takeCopy("r2", id);
    await eventually(async () => hold.lookups() === 1);
    const res = await parallel("r2", { action: "cancel", job_ids: [id] });
    expect(res.body.jobs[0].state).toBe("cancelled");
    hold.release();
    expect(await taking).toBe("finished");
    expect(await toolCalls(id)).toHaveLength(0);
  });
});

describe("the fast path", () => {
  it("starts the calls before the queue copy, so a copy that cannot be sent holds nothing up", async () => {
    await parallel("r3", { tool_calls: [call("echo")] });
    await degradeChat("r3", { queue: "fail" });
    // A deadline within 25 s: the call goes to an invocation the chat starts, with no queue on its path.
    const res = await parallel("r3", { tool_calls: [call("echo", { first: 1 })], timeout: 5, job_timeout: 20 });
    expect(res.body.jobs[0]).toMatchObject({ state: "success", result: '{"first":1}' });
    // A job the fast path could not start would still get its copy from the watchdog.
    const watchdog = await runInDurableObject(chatObject("r3"), (_i, st) =>
      st.storage.sql.exec("SELECT at FROM timers WHERE kind = 'dispatch'").toArray(),
    );
    expect(watchdog).toHaveLength(1);
  });
});

describe("egress at run time", () => {
  it("a stored tool URL no longer allowed fails the job instead of being called", async () => {
    const id = await strandedJob("r4", call("echo", { blocked: 1 }));
    // The runner reads the rules in force where it runs: here a `calls` consumer whose deployment allows no
    // private address.
    await deliver("calls", [{ tenant: "acme", chat_id: "r4", jobs: [{ job_id: id, attempt: 1 }] }], {
      ALLOW_PRIVATE_EGRESS: "false",
    });
    const row = await jobInState("r4", id, "error");
    expect(row.error).toMatch(/^The tool URL must use https:; outbound calls there are not allowed\.$/);
    expect(await toolCalls(id)).toHaveLength(0);
  });
});

describe("a hand-off its parent no longer holds", () => {
  const handOff = (chat: string, parent: string, lease: string) => ({
    tenant: "acme",
    chat_id: chat,
    parent_chat_id: parent,
    root_chat_id: parent,
    parent_job_id: "spawntask-gone",
    lease,
    deadline_at: Date.now() + 60_000,
    level: 1,
    profile: "default",
    name: "n",
    message: "m",
    attachments: [],
    limits: chatLimits(defaultConfig()),
  });
  const tablesOf = (stub: ReturnType<typeof chatObject>) =>
    runInDurableObject(stub, (_i, s) =>
      s.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf%'").toArray(),
    );

  it("starts nothing and gives the child no storage when the parent is gone (deleted meanwhile)", async () => {
    const child = chatObject("sub-orphan");
    expect(await child.beginTurn(handOff("sub-orphan", "no-such-parent", "l"))).toBe("duplicate");
    expect(await tablesOf(child)).toEqual([]);
  });

  it("starts nothing when the parent's job is not held by that claim", async () => {
    await parallel("holder", { tool_calls: [call("hang")], wait: false });
    const child = chatObject("sub-stale");
    expect(await child.beginTurn(handOff("sub-stale", "holder", "not-the-lease"))).toBe("duplicate");
    expect(await tablesOf(child)).toEqual([]);
  });
});

describe("a stop that arrives before the hand-off", () => {
  it("leaves a stopped turn that a late hand-off cannot start, and the chat is still purged", async () => {
    const child = chatObject("sub-tombstone");
    await child.stopTurn({
      tenant: "acme",
      chat_id: "sub-tombstone",
      parent_job_id: "callsubordin-x",
      parent_chat_id: "p",
    });
    const late = await child.beginTurn({
      tenant: "acme",
      chat_id: "sub-tombstone",
      parent_chat_id: "p",
      root_chat_id: "p",
      parent_job_id: "callsubordin-x",
      lease: "l",
      deadline_at: Date.now() + 60_000,
      level: 1,
      profile: "default",
      name: "n",
      message: "m",
      attachments: [],
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
