/**
 * Flow rules (docs/api.md#flow-control) in the Workers runtime, against the local tool server,
 * which counts the calls of a group in flight: at most N at once across every chat of the tenant,
 * per key, queued or refused, a deadline that counts the wait, several rules on one call.
 */
import { env, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { flowName } from "../../src/core/objects/names";
import { FLOW_SHARDS, flowShard } from "../../src/core/flow/shard";
import { OFFER_MS } from "../../src/core/flow/slots";
import { EMPTY_KEPT_MS } from "../../durable-objects/flow/FlowShardDO";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  agentConfig,
  api,
  chatObject,
  configure,
  eventually,
  jobRow,
  json,
  parallel,
  scriptLlm,
  toolCalls,
  toolConfig,
  toolServer,
} from "../helpers";

afterEach(() => {
  vi.useRealTimers();
  return reset();
});

const tracked = {
  name: "tracked",
  description: "held, counted",
  url: `${toolServer()}/tracked`,
  read_only: true,
  parameters: { type: "object" },
};
const flowConfig = (flow: unknown[], more: Record<string, unknown> = {}) =>
  toolConfig({ tools: [...toolConfig().tools, tracked], flow, ...more });
const call = (group: string, n: number, ms = 300) => ({ tool_name: "tracked", tool_args: { group, n, ms } });
const maxInFlight = async (group: string) =>
  ((await (await fetch(`${toolServer()}/__concurrency?group=${group}`)).json()) as { max_in_flight: number })
    .max_in_flight;

describe("flow rules", () => {
  it("run at most `concurrency` matching calls at once across the tenant's chats, and start the rest as slots free", async () => {
    await configure(flowConfig([{ name: "one-at-a-time", tools: ["tracked"], concurrency: 1 }]));
    const [a, b] = await Promise.all([
      parallel("flow-a", { tool_calls: [call("g1", 1), call("g1", 2)], wait: false }),
      parallel("flow-b", { tool_calls: [call("g1", 3)], wait: false }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const waiting = await eventually(async () => {
      const seen = [
        ...(
          await json(
            await api("/v1/chats/flow-a/parallel", {
              body: { action: "collect", job_ids: a.body.jobs.map((j: any) => j.job_id) },
            }),
          )
        ).jobs,
        ...(
          await json(
            await api("/v1/chats/flow-b/parallel", { body: { action: "collect", job_ids: [b.body.jobs[0].job_id] } }),
          )
        ).jobs,
      ];
      return seen.some((j: any) => j.waiting_for === "flow") ? seen : undefined;
    });
    const held = waiting.find((j: any) => j.waiting_for === "flow");
    expect(held).toMatchObject({ state: "pending", flow: { rule: "one-at-a-time" } });
    const chat = a.body.jobs.some((j: any) => j.job_id === held.job_id) ? "flow-a" : "flow-b";
    expect(await json(await api(`/v1/chats/${chat}/jobs/${held.job_id}`))).toMatchObject({
      waiting_for: "flow",
      flow: { rule: "one-at-a-time" },
    });
    const done = await Promise.all([
      api("/v1/chats/flow-a/parallel", {
        body: { action: "await", job_ids: a.body.jobs.map((j: any) => j.job_id), timeout: 20 },
      }).then(json),
      api("/v1/chats/flow-b/parallel", {
        body: { action: "await", job_ids: [b.body.jobs[0].job_id], timeout: 20 },
      }).then(json),
    ]);
    expect(done.flatMap((d) => d.jobs.map((j: any) => j.state))).toEqual(["success", "success", "success"]);
    expect(await maxInFlight("g1")).toBe(1);
  });

  it("give each key its own limits: calls of two users run side by side, one user's wait", async () => {
    await configure(flowConfig([{ name: "per-user", tools: ["tracked"], concurrency: 1, key: "metadata.user_id" }]));
    const meta = (user: string) => `?metadata=${encodeURIComponent(JSON.stringify({ user_id: user }))}`;
    const [u1, u2] = await Promise.all([
      parallel("flow-k1", { tool_calls: [call("g2", 1, 400), call("g2", 2, 400)], timeout: 20 }, { query: meta("u1") }),
      parallel("flow-k2", { tool_calls: [call("g2", 3, 400)], timeout: 20 }, { query: meta("u2") }),
    ]);
    expect(u1.body.jobs.map((j: any) => j.state)).toEqual(["success", "success"]);
    expect(u2.body.jobs[0].state).toBe("success");
    // One key's two calls never overlap; the other key's call runs beside them (one shared key would give 1, none 3).
    expect(await maxInFlight("g2")).toBe(2);
  });

  it("end a call with no room at once under `reject`, with the contract's text; the batch's other calls run", async () => {
    await configure(flowConfig([{ name: "strict", tools: ["tracked"], concurrency: 1, on_limit: "reject" }]));
    const res = await parallel("flow-r", {
      tool_calls: [call("g4", 1, 600), call("g4", 2, 600), { tool_name: "echo", tool_args: { x: 1 } }],
      timeout: 20,
    });
    const states = res.body.jobs.map((j: any) => j.state);
    expect(states.filter((s: string) => s === "error")).toHaveLength(1);
    expect(res.body.jobs.find((j: any) => j.state === "error").error).toBe(
      "Flow rule 'strict' is at its limit (1 running, limit 1); try again later.",
    );
    expect(res.body.jobs[2]).toMatchObject({ tool_name: "echo", state: "success" });
  });

  it("count the wait in a job's deadline: still queued at it, the job ends `timeout` saying which rule held it", async () => {
    await configure(flowConfig([{ name: "slow-lane", tools: ["tracked"], concurrency: 1 }]));
    const hold = await parallel("flow-d", { tool_calls: [call("g5", 1, 4_000)], wait: false });
    const queued = await parallel("flow-d", { tool_calls: [call("g5", 2)], wait: false, job_timeout: 1 });
    await new Promise((r) => setTimeout(r, 1_200));
    await runDurableObjectAlarm(chatObject("flow-d"));
    const ended = await json(
      await api("/v1/chats/flow-d/parallel", {
        body: { action: "await", job_ids: [queued.body.jobs[0].job_id], timeout: 10 },
      }),
    );
    expect(ended.jobs[0]).toMatchObject({
      state: "timeout",
      error: "Job waited 1 s for flow rule 'slow-lane' and reached its deadline (job_timeout) without starting.",
    });
    await api("/v1/chats/flow-d/parallel", { body: { action: "cancel", job_ids: [hold.body.jobs[0].job_id] } });
  });

  it("start a call under two rules only when both have room, holding neither while it waits", async () => {
    await configure(
      flowConfig([
        { name: "a-rule", tools: ["tracked"], concurrency: 1 },
        { name: "b-rule", tools: ["track*"], concurrency: 2 },
      ]),
    );
    const res = await parallel("flow-2", { tool_calls: [call("g6", 1), call("g6", 2), call("g6", 3)], timeout: 20 });
    expect(res.body.jobs.map((j: any) => j.state)).toEqual(["success", "success", "success"]);
    expect(await maxInFlight("g6")).toBe(1);
  });

  it("leave calls no rule matches alone, and answer a cancelled queued call's slot to the next in line", async () => {
    await configure(flowConfig([{ name: "only-tracked", tools: ["tracked"], concurrency: 1 }]));
    const plain = await parallel("flow-p", { tool_calls: [{ tool_name: "echo", tool_args: {} }] });
    expect(plain.body.jobs[0]).not.toHaveProperty("waiting_for");
    const first = await parallel("flow-p", { tool_calls: [call("g7", 1, 1_500)], wait: false });
    const second = await parallel("flow-p", { tool_calls: [call("g7", 2, 100)], wait: false });
    const third = await parallel("flow-p", { tool_calls: [call("g7", 3, 100)], wait: false });
    await eventually(
      async () => (await json(await api(`/v1/chats/flow-p/jobs/${second.body.jobs[0].job_id}`))).state === "pending",
    );
    await api("/v1/chats/flow-p/parallel", { body: { action: "cancel", job_ids: [second.body.jobs[0].job_id] } });
    const done = await json(
      await api("/v1/chats/flow-p/parallel", {
        body: { action: "await", job_ids: [first.body.jobs[0].job_id, third.body.jobs[0].job_id], timeout: 20 },
      }),
    );
    expect(done.jobs.map((j: any) => j.state)).toEqual(["success", "success"]);
    expect(await maxInFlight("g7")).toBe(1);
  });

  it("hold the model requests of every agent loop to a rule on `llm`", async () => {
    const modelLimit = async (model: string, flow: unknown[]) => {
      await configure(agentConfig(model, { flow }));
      await scriptLlm(model, [
        { content: "one", delay_ms: 300 },
        { content: "two", delay_ms: 300 },
        { content: "three", delay_ms: 300 },
      ]);
      const sub = (message: string) => ({ tool_name: "call_subordinate", tool_args: { message, reset: true } });
      const res = await parallel(`flow-llm-${model}`, { tool_calls: [sub("a"), sub("b"), sub("c")], timeout: 30 });
      expect(res.body.jobs.map((j: any) => j.state)).toEqual(["success", "success", "success"]);
      return (
        (await (await fetch(`${toolServer()}/__llm/concurrency?model=${model}`)).json()) as { max_in_flight: number }
      ).max_in_flight;
    };
    expect(await modelLimit("m-flow-free", [])).toBe(3);
    expect(await modelLimit("m-flow-one", [{ name: "model", tools: ["llm"], concurrency: 1 }])).toBe(1);
  });

  it("are shown by GET /v1/flow: each rule's running and queued calls, its rate's headroom, its busiest keys", async () => {
    await configure(
      flowConfig([
        { name: "per-user", tools: ["hang"], concurrency: 1, key: "metadata.user_id" },
        { name: "paced", tools: ["echo"], rate: { limit: 10, period_seconds: 60, burst: 4 } },
      ]),
    );
    expect(await json(await api("/v1/flow"))).toEqual({
      rules: [
        { name: "per-user", running: 0, queued: 0, keys: [] },
        { name: "paced", running: 0, queued: 0, rate: { limit: 10, period_seconds: 60, available: 4 }, keys: [] },
      ],
    });
    const meta = (user: string) => `?metadata=${encodeURIComponent(JSON.stringify({ user_id: user }))}`;
    const u1 = await parallel(
      "flow-list-1",
      {
        tool_calls: [
          { tool_name: "hang", tool_args: {} },
          { tool_name: "hang", tool_args: {} },
        ],
        wait: false,
      },
      { query: meta("u1") },
    );
    const u2 = await parallel(
      "flow-list-2",
      { tool_calls: [{ tool_name: "hang", tool_args: {} }], wait: false },
      { query: meta("u2") },
    );
    await parallel("flow-list-3", { tool_calls: [{ tool_name: "echo", tool_args: {} }] });
    const busy = await eventually(async () => {
      const now = await json(await api("/v1/flow"));
      return now.rules[0].running === 2 && now.rules[0].queued === 1 && now.rules[1].rate.available === 3
        ? now
        : undefined;
    });
    expect(busy.rules[0].keys).toEqual([
      { key: "u1", running: 1, queued: 1 },
      { key: "u2", running: 1, queued: 0 },
    ]);
    await api("/v1/chats/flow-list-1/parallel", {
      body: { action: "cancel", job_ids: u1.body.jobs.map((j: any) => j.job_id) },
    });
    await api("/v1/chats/flow-list-2/parallel", {
      body: { action: "cancel", job_ids: u2.body.jobs.map((j: any) => j.job_id) },
    });
    const idle = await eventually(async () => {
      const now = await json(await api("/v1/flow"));
      return now.rules[0].running === 0 && now.rules[0].queued === 0 ? now : undefined;
    });
    expect(idle.rules[0].keys).toEqual([]);
  });

  it("pace starts under a rate: one every 100 ms at 10 a second with no burst", async () => {
    await configure(
      flowConfig([{ name: "paced", tools: ["tracked"], rate: { limit: 10, period_seconds: 1, burst: 1 } }]),
    );
    // One call first, so the tool's target is looked up already when the three are released (a first
    // lookup would delay only the first start).
    await parallel("flow-rate", { tool_calls: [call("g8", 0, 10)], timeout: 20 });
    await new Promise((r) => setTimeout(r, 150)); // the bucket refills
    const res = await parallel("flow-rate", {
      tool_calls: [call("g8", 1, 10), call("g8", 2, 10), call("g8", 3, 10)],
      timeout: 20,
    });
    expect(res.body.jobs.map((j: any) => j.state)).toEqual(["success", "success", "success"]);
    // When each call was let go and started, in the chat: the tool's arrivals add the hop to its
    // host, whose time varies with the machine's load.
    const starts = (
      await Promise.all(
        res.body.jobs.map(async (j: any) => (await jobRow("flow-rate", j.job_id))!.started_at as number),
      )
    ).sort((a, b) => a - b);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(90);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(90);
  });

  it("refuse a call past `max_queued`, with the reason, while the ones before it run or wait", async () => {
    await configure(flowConfig([{ name: "tight", tools: ["tracked"], concurrency: 1, max_queued: 1 }]));
    const res = await parallel("flow-full", {
      tool_calls: [call("g9", 1, 300), call("g9", 2, 300), call("g9", 3, 300)],
      timeout: 20,
    });
    expect(res.body.jobs.map((j: any) => j.state)).toEqual(["success", "success", "error"]);
    // Refused like `reject`, with its text.
    expect(res.body.jobs[2].error).toBe("Flow rule 'tight' is at its limit (1 running, limit 1); try again later.");
  });

  it("judge calls already queued by the newest limits: a call admitted under older rules asking again does not bring them back", async () => {
    const object = env.FLOW.getByName(flowName("acme", flowShard("")));
    // The clock stands still, so the rate's bucket refills nothing between the asks (a slow machine took 10
    // ms between two).
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    try {
      // The newer config also gives the rule a rate, which its figures show (`available`).
      const rule = (concurrency: number) => ({
        name: "swap",
        concurrency,
        ...(concurrency > 1 ? { rate: { limit: 100, period_seconds: 1 } } : {}),
        on_limit: "queue" as const,
        max_queued: 1000,
      });
      const line = { rule: "swap", key: "" };
      const asker = (id: string) => ({ job_id: id, chat: "c1", deadline_at: Date.now() + 60_000, holds: [line] });
      const rules = (concurrency: number, asOf: number) => ({ swap: { rule: rule(concurrency), asOf } });
      const queued = (position: number) => ({ outcome: "queued", at: line, position });
      // Admitted under concurrency 1: one holds, two wait.
      expect(await object.ask("acme", rules(1, 1_000), [asker("old-1"), asker("old-2"), asker("old-3")])).toEqual([
        { outcome: "granted" },
        queued(1),
        queued(2),
      ]);
      // A call admitted after the config went to 3 brings the new limit: both waiters are offered a slot, the
      // newcomer waits.
      expect(await object.ask("acme", rules(3, 2_000), [asker("new-1")])).toEqual([queued(3)]);
      // The old waiters, woken, ask again with the rules they were admitted under, and take their offers.
      expect(await object.ask("acme", rules(1, 1_000), [asker("old-2"), asker("old-3")])).toEqual([
        { outcome: "granted" },
        { outcome: "granted" },
      ]);
      expect(await object.figures()).toEqual([{ rule: "swap", key: "", running: 3, queued: 1, available: 98 }]);
      // A slot frees: under the limit of 3 (not the 1 the old calls carried) the newcomer gets it.
      await object.giveBack("acme", [{ hold: line, ids: ["old-1"] }]);
      expect(await object.ask("acme", rules(3, 2_000), [asker("new-1")])).toEqual([{ outcome: "granted" }]);
      expect(await object.figures()).toEqual([{ rule: "swap", key: "", running: 3, queued: 0, available: 97 }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keep every key a model chooses in the tenant's 8 shards, and delete their storage once nothing is held", async () => {
    // Round 4: 32 keyed rules × 32 calls made 1,024 objects in one request, kept after the jobs ended.
    const rules = Array.from({ length: 32 }, (_, r) => ({
      name: `keyed-${r}`,
      tools: ["tracked"],
      key: "args.u",
      concurrency: 1,
    }));
    await configure(flowConfig(rules, { limits: { max_calls: 32 } }));
    const calls = Array.from({ length: 32 }, (_, k) => ({
      tool_name: "tracked",
      tool_args: { group: "g-keys", n: k, ms: 300, u: `user-${k}` },
    }));
    const started = await parallel("flow-keys", { tool_calls: calls, wait: false });
    expect(started.status).toBe(200);
    const shards = Array.from({ length: FLOW_SHARDS }, (_, i) => env.FLOW.getByName(flowName("acme", i)));
    const tables = (shard: (typeof shards)[number]) =>
      runInDurableObject(
        shard,
        (_o, state) =>
          state.storage.sql.exec(`SELECT name FROM sqlite_master WHERE name IN ('lines', 'waiters')`).toArray().length,
      );
    // While they run, each of the 32 rules holds one slot per key: 1,024 lines, in at most 8 objects.
    const busy = await eventually(async () => {
      const flow = await json(await api("/v1/flow"));
      return flow.rules.every((r: any) => r.running === 32) ? flow : undefined;
    });
    expect(busy.rules[0].keys).toHaveLength(20);
    const done = await json(
      await api("/v1/chats/flow-keys/parallel", {
        body: { action: "await", job_ids: started.body.jobs.map((j: any) => j.job_id), timeout: 30 },
      }),
    );
    expect(done.status).toBe("success");
    await eventually(async () => {
      const lines = await Promise.all(shards.map((shard) => shard.figures()));
      return lines.every((l) => l.length === 0) ? true : undefined;
    });
    expect((await json(await api("/v1/flow"))).rules[0]).toMatchObject({ running: 0, queued: 0, keys: [] });
    // Each shard that held something keeps its tables a minute, for calls that come again; then they go.
    expect((await Promise.all(shards.map(tables))).some((n) => n > 0)).toBe(true);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + EMPTY_KEPT_MS);
    for (const shard of shards) await runDurableObjectAlarm(shard);
    expect(await Promise.all(shards.map(tables))).toEqual(shards.map(() => 0));
  });

  it("read a line an older shard kept with its waiters in its row, then keep each waiter in a row of its own", async () => {
    const shard = env.FLOW.getByName(flowName("acme", flowShard("")));
    const hold = { rule: "legacy", key: "" };
    const rule = { name: "legacy", concurrency: 1, on_limit: "queue" as const, max_queued: 1000 };
    const now = Date.now();
    const until = now + 600_000;
    const waiter = (job: string, seq: number) => ({ job_id: job, chat: `c-${job}`, seq, arrived_at: now, until });
    const slots = {
      holders: [{ job_id: "h", chat: "c-h", until }],
      offers: [],
      waiters: [waiter("w1", 1), waiter("w2", 2)],
      rate: 0,
      last_start: {},
      next_seq: 3,
    };
    await runInDurableObject(shard, (_o, state) => {
      state.storage.sql.exec(`CREATE TABLE lines (key TEXT NOT NULL, rule TEXT NOT NULL, tenant TEXT NOT NULL,
        wake_at INTEGER NOT NULL, idle INTEGER NOT NULL, updated_at INTEGER NOT NULL, line TEXT NOT NULL,
        PRIMARY KEY (key, rule)) WITHOUT ROWID`);
      state.storage.sql.exec(
        `INSERT INTO lines VALUES ('', 'legacy', 'acme', ?, 0, ?, ?)`,
        until,
        now,
        JSON.stringify({ rule, rule_as_of: now, slots }),
      );
    });
    expect(await shard.figures()).toEqual([{ rule: "legacy", key: "", running: 1, queued: 2 }]);
    const asked = await shard.ask("acme", { legacy: { rule, asOf: now } }, [
      { job_id: "w3", chat: "c-w3", deadline_at: until, holds: [hold] },
    ]);
    expect(asked).toEqual([{ outcome: "queued", at: hold, position: 3 }]);
    await shard.giveBack("acme", [{ hold, ids: ["w2"] }]);
    const stored = await runInDurableObject(shard, (_o, state) => ({
      line: JSON.parse(state.storage.sql.exec<{ line: string }>(`SELECT line FROM lines`).one().line),
      waiters: state.storage.sql
        .exec<{ job_id: string }>(`SELECT job_id FROM waiters ORDER BY job_id`)
        .toArray()
        .map((r) => r.job_id),
    }));
    expect(stored.line.slots.waiters).toEqual([]);
    expect(stored.waiters).toEqual(["w1", "w3"]);
    expect(await shard.figures()).toEqual([{ rule: "legacy", key: "", running: 1, queued: 2 }]);
  });

  it("rewrite a waiter's row when it comes back to a line with a new place", async () => {
    const shard = env.FLOW.getByName(flowName("acme", flowShard("")));
    const hold = { rule: "places", key: "" };
    const rule = { name: "places", concurrency: 1, on_limit: "queue" as const, max_queued: 1000 };
    const rules = { places: { rule, asOf: 0 } };
    const until = Date.now() + 600_000;
    const asking = (job_id: string) => ({ job_id, chat: `c-${job_id}`, deadline_at: until, holds: [hold] });
    const rows = () =>
      runInDurableObject(shard, (_o, state) =>
        state.storage.sql
          .exec<{ waiter: string }>(`SELECT waiter FROM waiters ORDER BY job_id`)
          .toArray()
          .map((r) => JSON.parse(r.waiter) as { job_id: string; seq: number }),
      );
    await shard.ask("acme", rules, [asking("h"), asking("w1"), asking("w2")]);
    expect((await rows()).map((w) => [w.job_id, w.seq])).toEqual([
      ["w1", 1],
      ["w2", 2],
    ]);
    // w1 is offered the freed slot (a call under several rules), lets the offer lapse, and asks again:
    // it goes to the back of the line, and its row says so.
    await shard.giveBack("acme", [{ hold, ids: ["h"] }]);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + OFFER_MS + 1);
    await shard.ask("acme", rules, [asking("w1")]);
    const after = await rows();
    expect(after.find((w) => w.job_id === "w1")!.seq).toBe(3);
    vi.useRealTimers();
  });

  it("take a line's own waiters over the rows a newer version left, should an older one have written it since", async () => {
    const shard = env.FLOW.getByName(flowName("acme", flowShard("")));
    const hold = { rule: "back", key: "" };
    const rule = { name: "back", concurrency: 1, on_limit: "queue" as const, max_queued: 1000 };
    const now = Date.now();
    const until = now + 600_000;
    const waiter = (job: string, seq: number) => ({ job_id: job, chat: `c-${job}`, seq, arrived_at: now, until });
    const slots = { holders: [{ job_id: "h", chat: "c-h", until }], offers: [], waiters: [waiter("w1", 2)] };
    await runInDurableObject(shard, (_o, state) => {
      const sql = state.storage.sql;
      sql.exec(`CREATE TABLE lines (key TEXT NOT NULL, rule TEXT NOT NULL, tenant TEXT NOT NULL,
        wake_at INTEGER NOT NULL, idle INTEGER NOT NULL, updated_at INTEGER NOT NULL, line TEXT NOT NULL,
        PRIMARY KEY (key, rule)) WITHOUT ROWID`);
      sql.exec(`CREATE TABLE waiters (key TEXT NOT NULL, rule TEXT NOT NULL, job_id TEXT NOT NULL,
        waiter TEXT NOT NULL, PRIMARY KEY (key, rule, job_id)) WITHOUT ROWID`);
      const line = { rule, rule_as_of: now, slots: { ...slots, rate: 0, last_start: {}, next_seq: 3 } };
      sql.exec(`INSERT INTO lines VALUES ('', 'back', 'acme', ?, 0, ?, ?)`, until, now, JSON.stringify(line));
      // Rows from before the older version ran: an ended call's place, and w1's old one.
      for (const w of [waiter("gone", 1), waiter("w1", 1)])
        sql.exec(`INSERT INTO waiters VALUES ('', 'back', ?, ?)`, w.job_id, JSON.stringify(w));
    });
    expect(await shard.figures()).toEqual([{ rule: "back", key: "", running: 1, queued: 1 }]);
    await shard.ask("acme", { back: { rule, asOf: now } }, [
      { job_id: "w2", chat: "c-w2", deadline_at: until, holds: [hold] },
    ]);
    const stored = await runInDurableObject(shard, (_o, state) =>
      state.storage.sql
        .exec<{ waiter: string }>(`SELECT waiter FROM waiters ORDER BY job_id`)
        .toArray()
        .map((r) => JSON.parse(r.waiter) as { job_id: string; seq: number }),
    );
    expect(stored.map((w) => [w.job_id, w.seq])).toEqual([
      ["w1", 2],
      ["w2", 3],
    ]);
  });

  it("keep a key whose rate is spent until it refills, then let its shard go", async () => {
    await configure(
      flowConfig([{ name: "paced", tools: ["tracked"], key: "args.u", rate: { limit: 1, period_seconds: 30 } }]),
    );
    const res = await parallel("flow-refill", {
      tool_calls: [{ tool_name: "tracked", tool_args: { group: "g-refill", n: 1, ms: 10, u: "u1" } }],
      timeout: 20,
    });
    expect(res.body.jobs[0].state).toBe("success");
    const shard = env.FLOW.getByName(flowName("acme", flowShard("u1")));
    // Nothing runs, but the one start a 30 s period allows is spent: forgetting it now would allow another.
    const held = await eventually(async () => {
      const lines = await shard.figures();
      return lines.length === 1 && lines[0]!.running === 0 ? lines : undefined;
    });
    expect(held).toEqual([{ rule: "paced", key: "u1", running: 0, queued: 0, available: 0 }]);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 31_000);
    await runDurableObjectAlarm(shard);
    expect(await shard.figures()).toEqual([]);
    const left = await runInDurableObject(
      shard,
      (_o, state) => state.storage.sql.exec(`SELECT name FROM sqlite_master WHERE name = 'lines'`).toArray().length,
    );
    expect(left).toBe(0);
  });

  it("give a deleted chat's slots back at once: the call waiting in another chat starts", async () => {
    await configure(flowConfig([{ name: "solo", tools: ["tracked"], concurrency: 1 }]));
    const holder = await parallel("flow-del-a", { tool_calls: [call("g11", 1, 30_000)], wait: false });
    await eventually(async () =>
      (await json(await api(`/v1/chats/flow-del-a/jobs/${holder.body.jobs[0].job_id}`))).state === "running"
        ? true
        : undefined,
    );
    const waiter = await parallel("flow-del-b", { tool_calls: [call("g11", 2, 10)], wait: false });
    expect(waiter.body.jobs[0]).toMatchObject({ state: "pending", waiting_for: "flow" });
    expect((await api("/v1/chats/flow-del-a", { method: "DELETE" })).status).toBe(200);
    const done = await json(
      await api("/v1/chats/flow-del-b/parallel", {
        body: { action: "await", job_ids: [waiter.body.jobs[0].job_id], timeout: 10 },
      }),
    );
    expect(done.jobs[0].state).toBe("success");
  });
});
