/**
 * Flow control's pure parts (docs/api.md#flow-control): the smoothed rate, the fair pick, one rule
 * and key's slots, calls that need several rules at once (properties over random rules), and which
 * rules a call is under.
 */
import { mayHoldFlowRoom } from "../../durable-objects/chat/gates/flow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextWaiter, type Waiter } from "../../src/core/flow/fair-pick";
import { flowRuleProblems, flowRulesSchema, type FlowRule } from "../../src/core/config/flow-rules";
import { flowHolds, flowKey, MAX_FLOW_KEY_CHARS, type FlowHold } from "../../src/core/flow/rules";
import { startsAvailable, takeStart, type RateRule } from "../../src/core/flow/rate";
import { acquireMany } from "../../src/core/flow/acquire";
import {
  askLines,
  FLOW_SHARDS,
  flowShard,
  giveBackLines,
  inAskingOrder,
  ruleFigures,
  settleLine,
  type Line,
  type ShardAnswer,
} from "../../src/core/flow/shard";
import {
  ask,
  emptySlots,
  giveBack,
  offerNext,
  OFFER_MS,
  type SlotRule,
  type SlotState,
} from "../../src/core/flow/slots";

const T0 = 1_000_000;

/** A shard's lines in memory, as the flow object keeps them in rows; `changed` since the last `settle`. */
function memoryLines() {
  const rows = new Map<string, Line>();
  const changed = new Map<string, FlowHold>();
  const id = (hold: FlowHold) => `${hold.rule}\u0000${hold.key}`;
  return {
    get: (hold: FlowHold) => rows.get(id(hold)),
    set: (hold: FlowHold, line: Line) => void (rows.set(id(hold), line), changed.set(id(hold), hold)),
    /** As the flow object does after each request: what is free goes to the next in line; the woken waiters. */
    settle: (now: number) => {
      const woken = [...changed.values()].flatMap((hold) => {
        const settled = settleLine(rows.get(id(hold))!, now);
        rows.set(id(hold), settled.line);
        return settled.woken.map((w) => w.job_id);
      });
      changed.clear();
      return woken;
    },
  };
}

const rule = (name: string, concurrency: number): SlotRule => ({
  name,
  concurrency,
  on_limit: "queue",
  max_queued: 1000,
});

describe("the smoothed rate", () => {
  const rule = fc.record({
    limit: fc.integer({ min: 1, max: 20 }),
    period_seconds: fc.integer({ min: 1, max: 60 }),
    burst: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
  });

  it("never lets more through in a span than its burst and its pace allow", () => {
    fc.assert(
      fc.property(
        rule,
        fc.array(fc.integer({ min: 0, max: 200_000 }), { minLength: 1, maxLength: 200 }),
        (r: RateRule, offsets) => {
          let state = 0;
          const starts: number[] = [];
          for (const at of offsets.map((o) => T0 + o).sort((a, b) => a - b)) {
            const taken = takeStart(r, state, at);
            if (taken.ok) (state = taken.state), starts.push(at);
          }
          const interval = (r.period_seconds * 1000) / r.limit;
          const burst = r.burst ?? r.limit;
          for (let i = 0; i < starts.length; i++) {
            for (const span of [0, interval, r.period_seconds * 1000]) {
              const inSpan = starts.filter((t) => t >= starts[i]! && t <= starts[i]! + span).length;
              expect(inSpan).toBeLessThanOrEqual(burst + Math.floor(span / interval) + 1e-9);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("lets a quiet rule burst, then paces it, and says when the next start may go", () => {
    const r = { limit: 60, period_seconds: 60, burst: 3 };
    let state = 0;
    for (let i = 0; i < 3; i++) state = (takeStart(r, state, T0) as { state: number }).state;
    expect(startsAvailable(r, state, T0)).toBe(0);
    expect(takeStart(r, state, T0)).toEqual({ ok: false, at: T0 + 1000 });
    expect(takeStart(r, state, T0 + 1000).ok).toBe(true);
    expect(startsAvailable(r, 0, T0)).toBe(3);
  });
});

describe("the fair pick", () => {
  const w = (job_id: string, chat: string, seq: number, arrived_at = T0 + seq): Waiter => ({
    job_id,
    chat,
    seq,
    arrived_at,
  });

  it("serves a chat first come first served, and another chat's single call before the first chat's 500th", () => {
    const flood = Array.from({ length: 500 }, (_, i) => w(`a${i}`, "A", i + 1));
    const single = w("b1", "B", 501);
    const last: Record<string, number> = {};
    const order: string[] = [];
    let waiting = [...flood, single];
    for (let now = T0 + 1000; order.length < 3; now++) {
      const next = nextWaiter(waiting, (chat) => last[chat])!;
      order.push(next.job_id);
      last[next.chat] = now;
      waiting = waiting.filter((x) => x !== next);
    }
    expect(order).toEqual(["a0", "b1", "a1"]);
  });

  it("picks every waiter in the end, each chat's in its own order", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("A", "B", "C", "D"), { minLength: 1, maxLength: 60 }), (chats) => {
        let waiting = chats.map((chat, i) => w(`j${i}`, chat, i + 1));
        const last: Record<string, number> = {};
        const picked: Waiter[] = [];
        for (let now = T0 + 10_000; waiting.length; now++) {
          const next = nextWaiter(waiting, (chat) => last[chat])!;
          picked.push(next);
          last[next.chat] = now;
          waiting = waiting.filter((x) => x !== next);
        }
        expect(picked).toHaveLength(chats.length);
        for (const chat of new Set(chats)) {
          const seqs = picked.filter((p) => p.chat === chat).map((p) => p.seq);
          expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        }
      }),
    );
  });
});

describe("one rule and key's slots", () => {
  const queueRule = (concurrency: number, more: Partial<SlotRule> = {}): SlotRule => ({
    name: "search-api",
    concurrency,
    on_limit: "queue",
    max_queued: 1000,
    ...more,
  });
  const askFor = (rule: SlotRule, s: SlotState, job: string, now = T0, chat = "c1") =>
    ask(rule, s, { job_id: job, chat, deadline_at: now + 60_000 }, now);

  it("grants up to its concurrency, queues the rest, and offers a freed slot to the next in line only", () => {
    const rule = queueRule(2);
    let s = emptySlots();
    for (const job of ["j1", "j2"]) ({ state: s } = askFor(rule, s, job));
    const third = askFor(rule, s, "j3");
    expect(third.answer).toEqual({ outcome: "queued", position: 1 });
    s = askFor(rule, third.state, "j4").state;
    s = giveBack(s, "j1", T0 + 10);
    const offered = offerNext(rule, s, T0 + 10);
    expect(offered.woken.map((x) => x.job_id)).toEqual(["j3"]);
    // A newcomer, and j4, find the slot kept for j3.
    expect(askFor(rule, offered.state, "j5", T0 + 11).answer.outcome).toBe("queued");
    expect(askFor(rule, offered.state, "j4", T0 + 11).answer.outcome).toBe("queued");
    expect(askFor(rule, offered.state, "j3", T0 + 11).answer).toEqual({ outcome: "granted" });
  });

  it("grants a freed slot outright to a call for which it is the only line, and offers it to any other", () => {
    const rule = queueRule(1);
    const sole = { job_id: "sole", chat: "c2", deadline_at: T0 + 60_000, sole: true };
    let s = askFor(rule, emptySlots(), "j1").state;
    s = ask(rule, s, sole, T0 + 1).state;
    s = ask(rule, s, { job_id: "multi", chat: "c3", deadline_at: T0 + 60_000 }, T0 + 2).state;
    const handed = offerNext(rule, giveBack(s, "j1", T0 + 10), T0 + 10);
    expect(handed.granted.map((w) => w.job_id)).toEqual(["sole"]);
    expect(handed.woken).toEqual([]);
    expect(handed.state.holders).toEqual([{ job_id: "sole", chat: "c2", until: T0 + 60_000 }]);
    expect(handed.state.waiters.map((w) => w.job_id)).toEqual(["multi"]);
    expect(askFor(rule, handed.state, "newcomer", T0 + 11).answer.outcome).toBe("queued");
    // Asking again after the grant (the periodic look after a lost wake-up) finds the slot its own.
    expect(ask(rule, handed.state, sole, T0 + 12).answer).toEqual({ outcome: "granted" });
    const next = offerNext(rule, giveBack(handed.state, "sole", T0 + 20), T0 + 20);
    expect(next.woken.map((w) => w.job_id)).toEqual(["multi"]);
    expect(next.granted).toEqual([]);
  });

  it("spends a start of the rate on each grant, and grants the next only when the rate has one", () => {
    const rule: SlotRule = {
      name: "paced",
      rate: { limit: 2, period_seconds: 60, burst: 1 },
      on_limit: "queue",
      max_queued: 10,
    };
    const sole = (job: string, at: number) => ({ job_id: job, chat: job, deadline_at: at + 600_000, sole: true });
    let s = ask(rule, emptySlots(), sole("j1", T0), T0).state;
    s = ask(rule, s, sole("s1", T0 + 1), T0 + 1).state;
    s = ask(rule, s, sole("s2", T0 + 2), T0 + 2).state;
    s = giveBack(s, "j1", T0 + 5);
    const early = offerNext(rule, s, T0 + 5);
    expect(early.granted).toEqual([]);
    expect(early.again).toBe(T0 + 30_000);
    const first = offerNext(rule, early.state, T0 + 30_000);
    expect(first.granted.map((w) => w.job_id)).toEqual(["s1"]);
    expect(first.again).toBe(T0 + 60_000);
    expect(offerNext(rule, first.state, T0 + 60_000).granted.map((w) => w.job_id)).toEqual(["s2"]);
  });

  it("answers a waiter that asks again with no room with the very state it was given, so nothing is written", () => {
    const rule = queueRule(1);
    const held = askFor(rule, emptySlots(), "j1").state;
    const queued = askFor(rule, held, "j2").state;
    const again = askFor(rule, queued, "j2", T0 + 5);
    expect(again.answer).toEqual({ outcome: "queued", position: 1 });
    expect(again.state).toBe(queued);
  });

  it("refuses with the contract's texts under `reject` and past `max_queued`", () => {
    const reject = queueRule(1, { on_limit: "reject" });
    const held = askFor(reject, emptySlots(), "j1").state;
    expect(askFor(reject, held, "j2").answer).toEqual({
      outcome: "refused",
      message: "Flow rule 'search-api' is at its limit (1 running, limit 1); try again later.",
    });
    const rated: SlotRule = {
      name: "mail",
      rate: { limit: 2, period_seconds: 60 },
      on_limit: "reject",
      max_queued: 1000,
    };
    let s = emptySlots();
    for (const job of ["m1", "m2"]) ({ state: s } = askFor(rated, s, job));
    s = giveBack(giveBack(s, "m1", T0), "m2", T0);
    expect(askFor(rated, s, "m3").answer).toEqual({
      outcome: "refused",
      message: "Flow rule 'mail' is at its limit (0 running, 2 started in the last 60 s); try again later.",
    });
    const tight = queueRule(1, { max_queued: 1 });
    let q = askFor(tight, emptySlots(), "j1").state;
    q = askFor(tight, q, "j2").state;
    expect(askFor(tight, q, "j3").answer).toEqual({
      outcome: "refused",
      message: "Flow rule 'search-api' is at its limit (1 running, limit 1); try again later.",
    });
  });

  it("frees a slot whose holder never gave it back at the holder's deadline, and an offer nobody took", () => {
    const rule = queueRule(1);
    const held = ask(rule, emptySlots(), { job_id: "lost", chat: "gone", deadline_at: T0 + 5_000 }, T0).state;
    const queued = askFor(rule, held, "next", T0 + 1);
    expect(queued.answer.outcome).toBe("queued");
    expect(askFor(rule, queued.state, "next", T0 + 4_999).answer.outcome).toBe("queued");
    const offered = offerNext(rule, queued.state, T0 + 5_000);
    expect(offered.woken.map((x) => x.job_id)).toEqual(["next"]);
    // The woken call never came back: once its offer lapses it is out of line, and the slot is free for whoever asks.
    expect(askFor(rule, offered.state, "late", T0 + 5_000 + OFFER_MS - 1).answer.outcome).toBe("queued");
    const after = askFor(rule, offered.state, "late", T0 + 5_000 + OFFER_MS + 1);
    expect(after.answer).toEqual({ outcome: "granted" });
    expect(after.state.waiters.map((w) => w.job_id)).toEqual([]);
  });

  it("lets a call whose chat never said it ended leave the line at its deadline", () => {
    const rule = queueRule(1);
    const held = askFor(rule, emptySlots(), "holder", T0);
    const lost = ask(rule, held.state, { job_id: "lost", chat: "gone", deadline_at: T0 + 2_000 }, T0).state;
    const after = askFor(rule, lost, "next", T0 + 1);
    expect(after.answer).toEqual({ outcome: "queued", position: 2 });
    const freed = offerNext(rule, giveBack(after.state, "holder", T0 + 3_000), T0 + 3_000);
    expect(freed.woken.map((w) => w.job_id)).toEqual(["next"]);
  });

  it("keeps the granted at or under its concurrency, and starts every queued call in the end", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.tuple(fc.constantFrom("A", "B", "C"), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 40 }),
        (concurrency, ops) => {
          const rule = queueRule(concurrency);
          let s = emptySlots();
          let now = T0;
          const granted = new Set<string>();
          const ended = new Set<string>();
          const ask1 = (job: string, chat: string, sole = false) => {
            const r = ask(rule, s, { job_id: job, chat, deadline_at: now + 3_600_000, sole }, now);
            s = r.state;
            if (r.answer.outcome === "granted") granted.add(job);
            expect(s.holders.length).toBeLessThanOrEqual(concurrency);
          };
          const finishOne = () => {
            const h = s.holders[0];
            if (!h) return;
            ended.add(h.job_id);
            s = giveBack(s, h.job_id, now);
            const o = offerNext(rule, s, now);
            s = o.state;
            // A sole waiter holds its slot already; any other asks again.
            for (const waiter of o.granted) granted.add(waiter.job_id);
            expect(s.holders.length).toBeLessThanOrEqual(concurrency);
            for (const waiter of o.woken) ask1(waiter.job_id, waiter.chat);
          };
          ops.forEach(([chat, finish, sole], i) => {
            now += 10;
            ask1(`j${i}`, chat, sole);
            if (finish) finishOne();
          });
          for (let guard = 0; s.holders.length && guard < 1000; guard++) (now += 10), finishOne();
          expect(s.waiters).toEqual([]);
          expect(granted.size).toBe(ops.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("who gives flow room back when a job ends", () => {
  it("is every job under a rule that got as far as the flow gate: waiting there, let go to a later gate, or started", () => {
    const flow = JSON.stringify({ holds: [{ rule: "r", key: "" }], rules: {} });
    expect(mayHoldFlowRoom({ flow, waiting_for: "flow" })).toBe(true);
    expect(mayHoldFlowRoom({ flow, waiting_for: "budget" })).toBe(true);
    expect(mayHoldFlowRoom({ flow, waiting_for: "spend" })).toBe(true);
    expect(mayHoldFlowRoom({ flow, waiting_for: null })).toBe(true);
    expect(mayHoldFlowRoom({ flow, waiting_for: "approval" })).toBe(false);
    expect(mayHoldFlowRoom({ flow, waiting_for: "tier" })).toBe(false);
    expect(mayHoldFlowRoom({ flow: null, waiting_for: null })).toBe(false);
  });
});

describe("a tenant's flow shards", () => {
  it("put each key in one of 8 shards, the same in every isolate, and order a call's lines by shard, then rule", () => {
    expect([flowShard(""), flowShard("u1"), flowShard("u2"), flowShard("u3")]).toEqual([5, 3, 6, 1]);
    for (const key of ["", "x", "a".repeat(256), "\u{1F600}"])
      expect(flowShard(key)).toBeGreaterThanOrEqual(0), expect(flowShard(key)).toBeLessThan(FLOW_SHARDS);
    const holds = [
      { rule: "b", key: "u1" },
      { rule: "z", key: "u3" },
      { rule: "a", key: "u1" },
      { rule: "m", key: "" },
    ];
    expect(inAskingOrder(holds)).toEqual([
      { rule: "z", key: "u3" },
      { rule: "a", key: "u1" },
      { rule: "b", key: "u1" },
      { rule: "m", key: "" },
    ]);
  });

  it("grant a call all its lines in a shard or none: at the first without room it gives back what it took there", () => {
    const lines = memoryLines();
    const rules = { a: { rule: rule("a", 5), asOf: 1 }, b: { rule: rule("b", 1), asOf: 1 } };
    const asker = (id: string) => ({
      job_id: id,
      chat: "c1",
      deadline_at: T0 + 60_000,
      holds: [
        { rule: "a", key: "u1" },
        { rule: "b", key: "u1" },
      ],
    });
    expect(askLines(lines, rules, [asker("j1"), asker("j2")], T0)).toEqual([
      { outcome: "granted" },
      { outcome: "queued", at: { rule: "b", key: "u1" }, position: 1 },
    ]);
    // j2 holds nothing under a while it waits at b.
    expect(lines.get({ rule: "a", key: "u1" })!.slots.holders.map((h) => h.job_id)).toEqual(["j1"]);
    giveBackLines(
      lines,
      [
        { hold: { rule: "a", key: "u1" }, ids: ["j1"] },
        { hold: { rule: "b", key: "u1" }, ids: ["j1"] },
      ],
      T0 + 10,
    );
    const settled = settleLine(lines.get({ rule: "b", key: "u1" })!, T0 + 10);
    expect(settled.woken.map((w) => w.job_id)).toEqual(["j2"]);
  });

  it("keep a line while it holds something or its rate is spent, and let it go once it holds nothing", () => {
    const paced = { ...rule("p", 5), rate: { limit: 1, period_seconds: 10 } };
    const lines = memoryLines();
    askLines(
      lines,
      { p: { rule: paced, asOf: 1 } },
      [{ job_id: "j", chat: "c", deadline_at: T0 + 60_000, holds: [{ rule: "p", key: "" }] }],
      T0,
    );
    expect(settleLine(lines.get({ rule: "p", key: "" })!, T0).wakeAt).toBe(T0 + 10_000);
    giveBackLines(lines, [{ hold: { rule: "p", key: "" }, ids: ["j"] }], T0 + 1);
    // Nothing held, but the rate refills only at T0 + 10 s: forgetting it sooner would hand out a fresh start.
    expect(settleLine(lines.get({ rule: "p", key: "" })!, T0 + 1).wakeAt).toBe(T0 + 10_000);
    expect(settleLine(lines.get({ rule: "p", key: "" })!, T0 + 10_000).wakeAt).toBeUndefined();
  });

  it("sum a rule's lines over every shard: totals, the least headroom, the busiest keys", () => {
    const lines = [
      { rule: "per-user", key: "u1", running: 1, queued: 3, available: 0 },
      { rule: "per-user", key: "u2", running: 1, queued: 0, available: 2 },
      { rule: "per-user", key: "u3", running: 0, queued: 0, available: 1 },
      { rule: "other", key: "", running: 4, queued: 4 },
    ];
    expect(ruleFigures({ name: "per-user", rate: { limit: 60, burst: 5 } }, lines)).toEqual({
      running: 2,
      queued: 3,
      available: 0,
      keys: [
        { key: "u1", running: 1, queued: 3 },
        { key: "u2", running: 1, queued: 0 },
      ],
    });
    expect(ruleFigures({ name: "idle", rate: { limit: 60, burst: 5 } }, lines)).toEqual({
      running: 0,
      queued: 0,
      available: 5,
      keys: [],
    });
  });
});

describe("a call that needs several rules", () => {
  it("asks each shard once, in order, gives back what it took in earlier shards at the first that does not grant, and waits or ends there", async () => {
    const asked: number[] = [];
    const given: number[] = [];
    // u3 is in shard 1, u1 in 3, u2 in 6.
    const holds = [
      { rule: "a", key: "u1" },
      { rule: "b", key: "u1" },
      { rule: "c", key: "u2" },
      { rule: "d", key: "u3" },
    ];
    const run = async (answer: (shard: number) => ShardAnswer) =>
      (
        await acquireMany(
          [{ id: "j", holds }],
          async (shard, asks) => asks.map(() => (asked.push(shard), answer(shard))),
          async (shard) => void given.push(shard),
        )
      ).get("j");
    const queuedAtC = { outcome: "queued" as const, at: { rule: "c", key: "u2" }, position: 3 };
    expect(await run((shard) => (shard === 6 ? queuedAtC : { outcome: "granted" }))).toEqual({
      outcome: "waiting",
      at: { rule: "c", key: "u2" },
      position: 3,
    });
    expect(asked).toEqual([1, 3, 6]);
    expect(given).toEqual([1, 3]);
    const refused = { outcome: "refused" as const, at: { rule: "b", key: "u1" }, message: "no" };
    expect(await run((shard) => (shard === 3 ? refused : { outcome: "granted" }))).toEqual(refused);
    expect(await run(() => ({ outcome: "granted" }))).toEqual({ outcome: "granted" });
  });

  it("asks for calls together with one request per shard, in the calls' order, a call's lines in a shard together", async () => {
    const requests: { shard: number; asks: { id: string; holds: FlowHold[] }[] }[] = [];
    const outcomes = await acquireMany(
      [
        {
          id: "j1",
          holds: [
            { rule: "a", key: "u1" },
            { rule: "b", key: "u1" },
          ],
        },
        { id: "j2", holds: [{ rule: "a", key: "u2" }] },
        { id: "j3", holds: [{ rule: "b", key: "u1" }] },
        { id: "j4", holds: [] },
      ],
      async (shard, asks) => (requests.push({ shard, asks }), asks.map(() => ({ outcome: "granted" }))),
      async () => {},
    );
    expect(requests).toEqual([
      {
        shard: 3,
        asks: [
          {
            id: "j1",
            holds: [
              { rule: "a", key: "u1" },
              { rule: "b", key: "u1" },
            ],
          },
          { id: "j3", holds: [{ rule: "b", key: "u1" }] },
        ],
      },
      { shard: 6, asks: [{ id: "j2", holds: [{ rule: "a", key: "u2" }] }] },
    ]);
    expect([...outcomes.values()].every((o) => o.outcome === "granted")).toBe(true);
  });

  /**
   * The chat's side (`acquireMany`) for calls asked together, against in-memory shards; returns the waiters
   * its give-backs woke.
   */
  async function tryAll(
    rules: SlotRule[],
    shards: Map<number, ReturnType<typeof memoryLines>>,
    asking: { id: string; chat: string; needs: FlowHold[] }[],
    now: number,
    running: Set<string>,
  ): Promise<string[]> {
    const woken: string[] = [];
    const brought = Object.fromEntries(rules.map((r) => [r.name, { rule: r, asOf: 1 }]));
    const chatOf = new Map(asking.map((j) => [j.id, j.chat]));
    const shard = (i: number) => shards.get(i) ?? shards.set(i, memoryLines()).get(i)!;
    const outcomes = await acquireMany(
      asking.map((job) => ({ id: job.id, holds: job.needs })),
      async (i, asks) => {
        const answers = askLines(
          shard(i),
          brought,
          asks.map((a) => ({ job_id: a.id, chat: chatOf.get(a.id)!, deadline_at: now + 3_600_000, holds: a.holds })),
          now,
        );
        woken.push(...shard(i).settle(now));
        return answers;
      },
      async (i, items) => void woken.push(...release(shard(i), items, now)),
    );
    for (const [id, outcome] of outcomes) if (outcome.outcome === "granted") running.add(id);
    return woken;
  }

  /** A shard takes back what calls had at these lines and offers it on: the woken waiters. */
  function release(
    lines: ReturnType<typeof memoryLines>,
    items: { hold: FlowHold; ids: string[] }[],
    now: number,
  ): string[] {
    giveBackLines(lines, items, now);
    return lines.settle(now);
  }

  it("never deadlocks, never holds a slot while it waits, and never runs more than a rule's concurrency", async () => {
    const ruleSet = fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 4 });
    const keys = ["u1", "u2", "u3", ""];
    await fc.assert(
      fc.asyncProperty(
        ruleSet,
        fc.array(
          fc.tuple(
            fc.constantFrom("c1", "c2", "c3"),
            fc.array(fc.tuple(fc.nat(3), fc.nat(3)), { minLength: 1, maxLength: 4 }),
          ),
          { minLength: 1, maxLength: 25 },
        ),
        async (limits, wanted) => {
          const rules = limits.map(
            (concurrency, i): SlotRule => ({ name: `r${i}`, concurrency, on_limit: "queue", max_queued: 1000 }),
          );
          const shards = new Map<number, ReturnType<typeof memoryLines>>();
          const jobs = wanted.map(([chat, picks], i) => {
            // One key per rule for a call, as a rule's key field has one value per call.
            const byRule = new Map(picks.map(([r, k]) => [`r${r % rules.length}`, keys[k]!]));
            return { id: `j${i}`, chat, needs: [...byRule].map(([rule, key]) => ({ rule, key })) };
          });
          const running = new Set<string>();
          const done = new Set<string>();
          let now = T0;
          const lineOf = (hold: FlowHold) => shards.get(flowShard(hold.key))?.get(hold);
          const check = () => {
            for (const r of rules) {
              for (const key of keys)
                expect(lineOf({ rule: r.name, key })?.slots.holders.length ?? 0).toBeLessThanOrEqual(r.concurrency!);
            }
            for (const job of jobs) {
              if (running.has(job.id) || done.has(job.id)) continue;
              for (const hold of job.needs)
                expect(lineOf(hold)?.slots.holders.some((h) => h.job_id === job.id) ?? false).toBe(false);
            }
          };
          /**
           * The woken calls ask again, together (as their chat's gate does), and so may wake others; every
           * call is asked at least once.
           */
          const settle = async (ids: string[]) => {
            for (let asking = ids; asking.length > 0; ) {
              const jobsAsking = [...new Set(asking)]
                .map((id) => jobs.find((j) => j.id === id)!)
                .filter((j) => !running.has(j.id) && !done.has(j.id));
              asking = jobsAsking.length ? await tryAll(rules, shards, jobsAsking, now, running) : [];
              check();
            }
          };
          await settle(jobs.map((j) => j.id));
          for (let step = 0; done.size < jobs.length; step++) {
            // Calls wait and nothing runs: that would be a deadlock.
            expect(running.size).toBeGreaterThan(0);
            expect(step).toBeLessThan(10_000);
            now += 100;
            const finishing = jobs.find((j) => j.id === [...running][0])!;
            running.delete(finishing.id);
            done.add(finishing.id);
            const woken = [...new Set(finishing.needs.map((h) => flowShard(h.key)))].flatMap((i) =>
              release(
                shards.get(i)!,
                finishing.needs.filter((h) => flowShard(h.key) === i).map((hold) => ({ hold, ids: [finishing.id] })),
                now,
              ),
            );
            await settle(woken);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("which rules a call is under", () => {
  const rules: FlowRule[] = flowRulesSchema.parse([
    { name: "search-api", tools: ["search", "docs__*"], concurrency: 4, key: "metadata.user_id" },
    { name: "model", tools: ["llm"], concurrency: 8 },
    { name: "by-city", tools: ["search"], rate: { limit: 10, period_seconds: 60 }, key: "args.city" },
  ]);

  it("matches by glob on the name a call runs as, with its key, in rule-name order", () => {
    expect(
      flowHolds(rules, { tool: "search", agent: "default", args: { city: "Oslo" }, metadata: { user_id: "u7" } }),
    ).toEqual([
      { rule: "by-city", key: "Oslo" },
      { rule: "search-api", key: "u7" },
    ]);
    expect(flowHolds(rules, { tool: "docs__read", agent: "default", args: {}, metadata: null })).toEqual([
      { rule: "search-api", key: "" },
    ]);
    expect(flowHolds(rules, { tool: "llm", agent: "default", args: {}, metadata: null })).toEqual([
      { rule: "model", key: "" },
    ]);
    expect(flowHolds(rules, { tool: "send_email", agent: "default", args: {}, metadata: { user_id: "u7" } })).toEqual(
      [],
    );
  });

  it("keys on a value as text: a number as JSON, a missing or null field as the empty key, a long one cut", () => {
    const rule = { key: "args.n" };
    expect(flowKey(rule, { tool: "x", agent: "default", args: { n: 7 }, metadata: null })).toBe("7");
    expect(flowKey(rule, { tool: "x", agent: "default", args: { n: null }, metadata: null })).toBe("");
    expect(flowKey(rule, { tool: "x", agent: "default", args: JSON.parse('{"__proto__": "p"}'), metadata: null })).toBe(
      "",
    );
    expect(flowKey(rule, { tool: "x", agent: "default", args: { n: "k".repeat(300) }, metadata: null })).toHaveLength(
      MAX_FLOW_KEY_CHARS,
    );
  });

  it("are checked as the config will state them: a limit, a key's shape, unique names, at most 32", () => {
    expect(flowRulesSchema.safeParse([{ name: "a", tools: ["x"] }]).success).toBe(false);
    expect(flowRulesSchema.safeParse([{ name: "a", tools: ["x"], concurrency: 1, key: "body.user" }]).success).toBe(
      false,
    );
    expect(
      flowRulesSchema.safeParse(Array.from({ length: 33 }, (_, i) => ({ name: `r${i}`, tools: ["x"], concurrency: 1 })))
        .success,
    ).toBe(false);
    const twice = flowRulesSchema.parse([
      { name: "a", tools: ["x"], concurrency: 1 },
      { name: "a", tools: ["y"], rate: { limit: 1, period_seconds: 1 } },
    ]);
    expect(flowRuleProblems(twice)).toEqual(["flow: the rule name 'a' is used twice"]);
    expect(flowRulesSchema.parse([{ name: "a", tools: ["x"], concurrency: 1 }])[0]).toMatchObject({
      on_limit: "queue",
      max_queued: 1000,
    });
  });
});
