/**
 * Billable operations per job, counted in the real runtime: Durable Object
 * requests (public methods and alarms entered), queue messages, and SQLite
 * rows written (each cursor's `rowsWritten`, plus key-value writes), and the
 * SQL statements run (not billed, but the chat's CPU per job), for
 * batches of 8 tool jobs through the fast path, including the queue copies
 * that arrive afterwards as duplicates (one message per batch), in Worker
 * runners and in the runner objects of calls past a consumer's lifetime, and what flow rules add to them. The
 * bounds guard against regressions;
 * docs/benchmarks.md turns the figures into cost per million jobs.
 */
import { env, reset, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChatDO } from "../../durable-objects/chat/ChatDO";
import { TenantDO } from "../../durable-objects/tenant/TenantDO";
import { CallRunnerDO } from "../../durable-objects/runner/CallRunnerDO";
import { FlowShardDO } from "../../durable-objects/flow/FlowShardDO";
import worker from "../../src/index";
import { forgetTraceExports } from "../../src/edge/telemetry/trace-export";
import { REPORT_EVERY_MS } from "../../src/core/telemetry/exporter";
import {
  toolServer,
  agentConfig,
  call,
  CALLS_IN_OBJECTS,
  chatObject,
  configure,
  eventually,
  parallel,
  scriptLlm,
  toolConfig,
} from "../helpers";

beforeEach(() => configure());
afterEach(() => reset());

type Cursor = SqlStorageCursor<Record<string, SqlStorageValue>>;
type Counts = {
  requests: Record<string, number>;
  queueMessages: number;
  consumerBatches: number;
  queued: number;
  kvWrites: number;
  alarmWrites: number;
  statements: [string, Cursor][];
};

/** Wraps prototypes shared by every object in this isolate; `stop()` puts them back. */
async function startMeter() {
  const counts: Counts = {
    requests: {},
    queueMessages: 0,
    consumerBatches: 0,
    queued: 0,
    kvWrites: 0,
    alarmWrites: 0,
    statements: [],
  };
  const undo: (() => void)[] = [];
  const wrap = <T extends object>(
    target: T,
    name: string,
    around: (orig: (...a: unknown[]) => unknown) => (...a: unknown[]) => unknown,
  ) => {
    const orig = (target as Record<string, unknown>)[name] as (...a: unknown[]) => unknown;
    (target as Record<string, unknown>)[name] = around(orig);
    undo.push(() => ((target as Record<string, unknown>)[name] = orig));
  };
  for (const [label, cls] of [
    ["ChatDO", ChatDO],
    ["TenantDO", TenantDO],
    ["CallRunnerDO", CallRunnerDO],
    ["FlowShardDO", FlowShardDO],
  ] as const) {
    for (const name of Object.getOwnPropertyNames(cls.prototype)) {
      if (name === "constructor" || typeof Object.getOwnPropertyDescriptor(cls.prototype, name)?.value !== "function")
        continue;
      wrap(
        cls.prototype,
        name,
        (orig) =>
          function (this: unknown, ...a: unknown[]) {
            counts.requests[`${label}.${name}`] = (counts.requests[`${label}.${name}`] ?? 0) + 1;
            if (name === "takeQueued" || name === "claimForRunner") counts.queued += (a[0] as string[]).length;
            return orig.apply(this, a);
          },
      );
    }
  }
  const { sql, kv, storage } = await runInDurableObject(chatObject("meter-probe"), (_i, s) => ({
    sql: Object.getPrototypeOf(s.storage.sql),
    kv: Object.getPrototypeOf(s.storage.kv),
    storage: Object.getPrototypeOf(s.storage),
  }));
  wrap(
    sql,
    "exec",
    (orig) =>
      function (this: unknown, ...a: unknown[]) {
        const cursor = orig.apply(this, a) as Cursor;
        counts.statements.push([String(a[0]).replace(/\s+/g, " ").slice(0, 80), cursor]);
        return cursor;
      },
  );
  // Cloudflare bills each setAlarm() as a row written, and a delete counts as one too.
  for (const name of ["setAlarm", "deleteAlarm"])
    wrap(
      storage,
      name,
      (orig) =>
        function (this: unknown, ...a: unknown[]) {
          counts.alarmWrites++;
          return orig.apply(this, a);
        },
    );
  for (const name of ["put", "delete"])
    wrap(
      kv,
      name,
      (orig) =>
        function (this: unknown, ...a: unknown[]) {
          counts.kvWrites++;
          return orig.apply(this, a);
        },
    );
  const queue = Object.getPrototypeOf(env.JOBS);
  wrap(
    queue,
    "send",
    (orig) =>
      function (this: unknown, ...a: unknown[]) {
        counts.queueMessages++;
        return orig.apply(this, a);
      },
  );
  wrap(
    queue,
    "sendBatch",
    (orig) =>
      function (this: unknown, ...a: unknown[]) {
        counts.queueMessages += (a[0] as unknown[]).length;
        return orig.apply(this, a);
      },
  );
  wrap(
    worker,
    "queue",
    (orig) =>
      function (this: unknown, ...a: unknown[]) {
        counts.consumerBatches++;
        return orig.apply(this, a);
      },
  );
  return {
    counts,
    stop: () => {
      for (const f of undo.reverse()) f();
    },
  };
}

describe("billable operations per job", () => {
  // Calls a Worker runner outlives go to runners in two messages of 4 (their copies), each claimed
  // in one request; the others go to two runner objects (4 each), with the batch's one copy after.
  it.each([
    { where: "in Worker runners", limits: {}, messagesPerBatch: 2, fixedRequests: 0.75 },
    { where: "in runner objects", limits: CALLS_IN_OBJECTS, messagesPerBatch: 1, fixedRequests: 0.875 },
  ])(
    "stay within their measured bounds for batches of 8 tool jobs run $where",
    async ({ limits, messagesPerBatch, fixedRequests }) => {
      await configure(toolConfig({ limits }));
      await parallel("meter", { tool_calls: [call("echo", { warm: 1 })] });
      await new Promise((r) => setTimeout(r, 300)); // the warm-up's queue copy is consumed
      const meter = await startMeter();
      const batches = 10;
      const jobs = batches * 8;
      try {
        for (let b = 0; b < batches; b++) {
          const { body } = await parallel("meter", {
            tool_calls: Array.from({ length: 8 }, (_, i) => call("echo", { b, i })),
          });
          expect(body.status).toBe("success");
        }
        // Every queue copy reaches its chat (as a duplicate) before counting stops.
        await eventually(async () => meter.counts.queued >= jobs);
      } finally {
        meter.stop();
      }
      const { counts } = meter;
      const requests = Object.values(counts.requests).reduce((a, b) => a + b, 0);
      // Read once every cursor is done: rowsWritten counts index entries too, as billing does.
      const rows =
        counts.statements.reduce((sum, [, c]) => sum + c.rowsWritten, 0) + counts.kvWrites + counts.alarmWrites;
      const perJob = {
        doRequests: requests / jobs,
        queueMessages: counts.queueMessages / jobs,
        rowsWritten: rows / jobs,
        consumerBatches: counts.consumerBatches / jobs,
        // Not billed, but each is a trip into SQLite on the chat's one thread: the CPU a job costs locally.
        statements: counts.statements.length / jobs,
        alarmWrites: counts.alarmWrites / jobs,
      };
      const byStatement = new Map<string, number>();
      for (const [q, c] of counts.statements) byStatement.set(q, (byStatement.get(q) ?? 0) + c.rowsWritten);
      const heaviest = [...byStatement].filter(([, n]) => n > 0).sort((x, y) => y[1] - x[1]);
      console.log(heaviest.map(([q, n]) => `${(n / jobs).toFixed(2)} rows/job  ${q}`).join("\n"));
      console.log("billable operations per job", JSON.stringify({ perJob, requests: counts.requests }));
      // Each queue message is written, read and deleted: 3 queue operations.
      expect(counts.queueMessages).toBe(batches * messagesPerBatch);
      expect((3 * counts.queueMessages) / jobs).toBeLessThanOrEqual((3 * messagesPerBatch) / 8);
      // Per batch: the request, its wait's socket (upgrade and close) and answer, and a runner's claim
      // per 4 calls (0.75 a job), or two runner objects' hand-overs and the queue copy (0.875). Then
      // the reports: a runner's outcomes that end while its last report is on its way go together,
      // 1.2 to 4 calls a report as the calls' ends fall (timing decides, so they are bounded by one a
      // call, and counted).
      const reports = counts.requests["ChatDO.runnerOutcomes"] ?? 0;
      expect(reports).toBeLessThanOrEqual(jobs);
      expect((requests - reports) / jobs).toBeLessThanOrEqual(fixedRequests);
      // The tenant's config and tool targets come from the isolate's copy, checked at most every 5 s.
      const tenantRequests = Object.entries(counts.requests)
        .filter(([name]) => name.startsWith("TenantDO."))
        .reduce((a, [, n]) => a + n, 0);
      expect(tenantRequests / batches).toBeLessThanOrEqual(0.1);
      // Per job: the row and its two indexes (3), claim and end (2), the collect mark (1); per batch of 8,
      // batch.finished and chat.idle (0.25). job.started and job.finished are kept on the job row.
      // The alarm (a row written per setAlarm) is set only when it moves: once in these 10 batches, 10
      // times per batch when every arm set it.
      expect(perJob.alarmWrites).toBeLessThanOrEqual(0.025);
      expect(perJob.rowsWritten).toBeLessThanOrEqual(6.3);
      // Statements: a job read once where it is claimed; its outcome ends it in one guarded update, no read
      // first (11.15 when a report read 7 columns first), and a queue copy reads only ids of active jobs.
      // A waiting request reads its jobs when it starts and at their last end, not at every end; a
      // batch is marked collected in one statement; only a built-in wait has a timer of its own to
      // clear (10.15 before those three). A chat busy with batch after batch keeps its job watches
      // armed, so it does not check for parked ones with each batch (7.36 when it did). A chat that never
      // ran a subagent has no tree slots to read at each admission (7.26 when it read them).
      // The answer of a wait held in the worker reads the jobs once more (7.16–7.4 with it). Reports
      // that end fewer calls each, as on a loaded machine, add their own few (7.56 seen under a full
      // suite run beside another).
      expect(perJob.statements).toBeLessThanOrEqual(7.6);
    },
  );
});

describe("traces", () => {
  /** Requests and rows of `batches` batches of 8 echo calls, each under a sampled traceparent. */
  async function measure(chat: string, batches: number) {
    // Warm: the exporter's copy of the tenant's target is read once, then checked by each report.
    const warm = { traceparent: `00-${"f".repeat(32)}-00f067aa0ba902b7-01` };
    await parallel(chat, { tool_calls: [call("echo", { warm: 1 })] }, { headers: warm });
    await new Promise((r) => setTimeout(r, 300));
    const meter = await startMeter();
    try {
      for (let b = 0; b < batches; b++) {
        const trace = b.toString(16).padStart(32, "a");
        const { body } = await parallel(
          chat,
          { tool_calls: Array.from({ length: 8 }, (_, i) => call("echo", { b, i })) },
          { headers: { traceparent: `00-${trace}-00f067aa0ba902b7-01` } },
        );
        expect(body.trace_id).toBe(trace);
      }
      await eventually(async () => meter.counts.queued >= batches * 8);
      // The exporter reports at most every 4 s (the warm-up's report opened the window): both sides wait
      // past it, so each counts the same stretch of time.
      await new Promise((r) => setTimeout(r, REPORT_EVERY_MS + 500));
    } finally {
      meter.stop();
    }
    const { counts } = meter;
    const all = Object.values(counts.requests).reduce((a, b) => a + b, 0);
    // A runner's outcome reports group by timing (see above): the rest are fixed per batch.
    const fixed = all - (counts.requests["ChatDO.runnerOutcomes"] ?? 0);
    const rows =
      counts.statements.reduce((sum, [, c]) => sum + c.rowsWritten, 0) + counts.kvWrites + counts.alarmWrites;
    return {
      requests: fixed / batches,
      rows: rows / batches,
      exported: counts.requests["TenantDO.telemetryExported"] ?? 0,
    };
  }

  it("cost at most one more object request and one more row per batch, with telemetry on", async () => {
    const batches = 10;
    await configure(toolConfig());
    forgetTraceExports();
    const off = await measure("meter-trace-off", batches);
    await configure(
      toolConfig({ telemetry: { otlp: { url: `${toolServer()}/otlp/billable/v1/traces`, headers: {} } } }),
    );
    const on = await measure("meter-trace-on", batches);
    console.log("traces: per batch, telemetry off and on", JSON.stringify({ off, on }));
    // The exporter's reports to the tenant come at most every 4 s from an isolate (these batches take
    // about 2 s); the hand-over to it is a Worker invocation, no object request.
    expect(on.exported).toBeGreaterThanOrEqual(1);
    expect(on.exported).toBeLessThanOrEqual(2);
    expect(on.requests - off.requests).toBeLessThanOrEqual(1.05);
    // The context rides on the job rows; the tenant's export counts are its one row per batch.
    expect(on.rows - off.rows).toBeLessThanOrEqual(1);
    expect(off.exported).toBe(0);
  });
});

describe("batches that each open a chat", () => {
  it("write the new chat's tables, meta and timers once, set its alarm twice, read back nothing they wrote, and ask the tenant once", async () => {
    await parallel("opening-warm", { tool_calls: [call("echo", { warm: 1 })] });
    await new Promise((r) => setTimeout(r, 300));
    const meter = await startMeter();
    const batches = 5;
    try {
      for (let b = 0; b < batches; b++) {
        const { body } = await parallel(`opening-${b}`, {
          tool_calls: Array.from({ length: 8 }, (_, i) => call("echo", { b, i })),
        });
        expect(body.status).toBe("success");
      }
      await eventually(async () => meter.counts.queued >= batches * 8);
    } finally {
      meter.stop();
    }
    const rows =
      meter.counts.statements.reduce((sum, [, c]) => sum + c.rowsWritten, 0) +
      meter.counts.kvWrites +
      meter.counts.alarmWrites;
    const byStatement = new Map<string, number>();
    for (const [q, c] of meter.counts.statements) byStatement.set(q, (byStatement.get(q) ?? 0) + c.rowsWritten);
    console.log(
      [...byStatement]
        .filter(([, n]) => n > 0)
        .sort((x, y) => y[1] - x[1])
        .map(([q, n]) => `${(n / batches).toFixed(2)} rows/chat  ${q}`)
        .join("\n"),
    );
    console.log(
      "a chat opened per batch of 8",
      JSON.stringify({
        alarmWritesPerChat: meter.counts.alarmWrites / batches,
        rowsWrittenPerJob: rows / (batches * 8),
        requests: meter.counts.requests,
      }),
    );
    // At admission and when its last job ends. The index entry's retry is due with the dispatch
    // watchdog, so the entry landing moves nothing (it moved the alarm 5 s later, a third write).
    expect(meter.counts.alarmWrites / batches).toBeLessThanOrEqual(2);
    // 89 rows per chat against a warm chat's 50 per batch: 116 before the tables of features most chats
    // never use were created on first use (−18), meta lost its rowid (−8) and the entry stopped moving
    // the alarm (−1).
    expect(rows / (batches * 8)).toBeLessThanOrEqual(11.125);
    // Each statement is a trip into SQLite on the chat's thread, on the answer's path. A new chat asks
    // whether its tables exist once (ten times before the answer was remembered both ways), and
    // reads back neither its meta nor its last event seq from the tables it has just made.
    const count = (pattern: RegExp) => meter.counts.statements.filter(([q]) => pattern.test(q)).length / batches;
    expect(count(/FROM sqlite_master WHERE type = 'table' AND name = 'jobs'/)).toBe(1);
    expect(count(/^SELECT key, value FROM meta/)).toBe(0);
    expect(count(/MAX\(seq\)|MAX\(started_seq\)/)).toBe(0);
    // One request to the tenant per new chat: its index entry carries chat.created and answers
    // whether the tenant stream listens (a publish of its own before, which probed the same).
    expect(meter.counts.requests["TenantDO.registerChat"]).toBe(batches);
    expect(meter.counts.requests["TenantDO.publish"] ?? 0).toBe(0);
  });
});

describe("a tenant whose batches come more than 5 s apart", () => {
  it("asks its TenantDO once per batch (the worker's check of its config), not again for the tools' targets", async () => {
    await parallel("now-and-then", { tool_calls: [call("echo", { warm: 1 })] });
    const meter = await startMeter();
    const batches = 4;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      for (let b = 0; b < batches; b++) {
        vi.setSystemTime(Date.now() + 6_000); // past the isolate's 5 s recheck
        const { body } = await parallel("now-and-then", { tool_calls: [call("echo", { b })] });
        expect(body.status).toBe("success");
      }
    } finally {
      vi.useRealTimers();
      meter.stop();
    }
    const { requests } = meter.counts;
    expect(requests["TenantDO.getConfig"]).toBe(batches);
    // The chat's targets were vouched for by the worker's check of the same version.
    expect(requests["TenantDO.runTargets"] ?? 0).toBe(0);
  });
});

/**
 * Runs `batches` batches of 8 echo calls in `chat` under a meter, until every queue copy has come; the counts
 * per job.
 */
async function meterBatches(chat: string, batches: number, query = "") {
  await parallel(chat, { tool_calls: [call("echo", { warm: 1 })] }, { query });
  await new Promise((r) => setTimeout(r, 300));
  const meter = await startMeter();
  const jobs = batches * 8;
  try {
    for (let b = 0; b < batches; b++) {
      const { body } = await parallel(
        chat,
        { tool_calls: Array.from({ length: 8 }, (_, i) => call("echo", { b, i })) },
        { query },
      );
      expect(body.status).toBe("success");
    }
    await eventually(async () => meter.counts.queued >= jobs);
    // A flow object's report to its rule's index goes beside the call: let the last one land.
    await new Promise((r) => setTimeout(r, 100));
  } finally {
    meter.stop();
  }
  const { counts } = meter;
  const named = (prefix: string) =>
    Object.entries(counts.requests)
      .filter(([name]) => name.startsWith(prefix))
      .reduce((a, [, n]) => a + n, 0) / jobs;
  const chatRows =
    counts.statements.reduce((sum, [, c]) => sum + c.rowsWritten, 0) + counts.kvWrites + counts.alarmWrites;
  return {
    requests: counts.requests,
    chatRequests: named("ChatDO."),
    flowAsks: (counts.requests["FlowShardDO.ask"] ?? 0) / jobs,
    flowGiveBacks: (counts.requests["FlowShardDO.giveBack"] ?? 0) / jobs,
    flowRequests: named("FlowShardDO."),
    // Every object's rows: the statements of chats, lanes and flow objects alike go through the one SQL prototype.
    rowsWritten: chatRows / jobs,
    statements: counts.statements.length / jobs,
  };
}

describe("flow rules", () => {
  const tracked = {
    name: "tracked",
    description: "counted",
    url: "http://127.0.0.1:1/never",
    read_only: true,
    parameters: { type: "object" },
  };

  it("cost a batch that matches none of them nothing: no request, no row", async () => {
    const without = await meterBatches("flow-none", 10);
    await configure({
      ...toolConfig(),
      tools: [...toolConfig().tools, tracked],
      flow: [
        { name: "search-api", tools: ["tracked"], concurrency: 2 },
        { name: "model", tools: ["llm"], concurrency: 5 },
      ],
    });
    const withRules = await meterBatches("flow-none-ruled", 10);
    console.log("no rule matches", JSON.stringify({ without, withRules }));
    expect(withRules.flowRequests).toBe(0);
    // The same rows and statements as without rules (a chat's first batch opened before metering in both),
    // within what a lane taking 2 or 3 of a batch's calls moves (about 0.1 a job).
    expect(withRules.rowsWritten).toBeLessThanOrEqual(without.rowsWritten + 0.15);
    expect(withRules.statements).toBeLessThanOrEqual(without.statements + 0.15);
    expect(withRules.rowsWritten).toBeLessThanOrEqual(6.3);
  });

  it("take a matching call's slots with at most one request and give them back with at most one, batched per chat", async () => {
    await configure({ ...toolConfig(), flow: [{ name: "echoes", tools: ["echo"], concurrency: 100 }] });
    const unkeyed = await meterBatches("flow-all", 10);
    await configure({
      ...toolConfig(),
      flow: [{ name: "echoes", tools: ["echo"], concurrency: 100, key: "metadata.user" }],
    });
    const keyed = await meterBatches(
      "flow-keyed",
      10,
      `?metadata=${encodeURIComponent(JSON.stringify({ user: "u1" }))}`,
    );
    console.log("every call under a rule", JSON.stringify({ unkeyed, keyed }));
    for (const m of [unkeyed, keyed]) {
      // The gate asks for a batch's 8 calls in one request, beside the batch's answer: no alarm first.
      expect(m.flowAsks).toBeLessThanOrEqual(1 / 8);
      expect(m.requests["ChatDO.alarm"] ?? 0).toBe(0);
      // Calls whose ends come together give back together: a lane's report of several, the chat's own.
      expect(m.flowGiveBacks).toBeLessThanOrEqual(1);
    }
    // Rows a flow-limited call adds to its job's 6.3: a fixed part (its release from the gate, the
    // line written by the batch's ask, the backup of that ask set and cleared), then one row per
    // give-back (the line again, or its deletion when it holds nothing). How many give-backs a batch
    // takes depends on how its calls' ends group, which timing decides, so those are counted as they
    // happened; the assertions above bound them. Each batch here also finds its shard empty, so the
    // shard makes its table and sets the alarm that watches the leases, and when the last line goes
    // it deletes both: 3 rows a batch of 8, the price of a shard keeping no storage when idle.
    const shardLife = 3 / 8;
    expect(unkeyed.rowsWritten).toBeLessThanOrEqual(6.3 + 1.85 + shardLife + unkeyed.flowGiveBacks);
    expect(keyed.rowsWritten).toBeLessThanOrEqual(6.3 + 1.85 + shardLife + keyed.flowGiveBacks);
  });
});

describe("a freed flow slot", () => {
  /**
   * Under one rule of concurrency 1, a 300 ms call of one chat holds the slot while a call of another
   * (with `more` in its body) waits; metered until the waiting call has ended. Its end, and the counts.
   */
  async function handOff(name: string, more: Record<string, unknown> = {}) {
    const held = {
      name: "held",
      description: "held for a while",
      url: `${toolServer()}/tracked`,
      read_only: true,
      parameters: { type: "object" },
    };
    await configure({
      ...toolConfig(),
      tools: [...toolConfig().tools, held],
      flow: [{ name: "solo", tools: ["held"], concurrency: 1 }],
    });
    const meter = await startMeter();
    try {
      const first = await parallel(`${name}-a`, {
        tool_calls: [call("held", { group: name, n: 1, ms: 300 })],
        wait: false,
      });
      await eventually(async () =>
        (await parallel(`${name}-a`, { action: "collect", job_ids: [first.body.jobs[0].job_id] })).body.jobs[0]
          .state === "running"
          ? true
          : undefined,
      );
      const second = await parallel(`${name}-b`, {
        tool_calls: [call("held", { group: name, n: 2, ms: 10 })],
        wait: false,
        ...more,
      });
      expect(second.body.jobs[0]).toMatchObject({ state: "pending", waiting_for: "flow" });
      const done = await parallel(`${name}-b`, { action: "await", job_ids: [second.body.jobs[0].job_id], timeout: 10 });
      return { state: done.body.jobs[0].state, requests: meter.counts.requests };
    } finally {
      meter.stop();
    }
  }

  it("goes to the next call under that one rule in one message: its chat asks nothing again and runs no alarm", async () => {
    const { state, requests } = await handOff("handoff");
    expect(state).toBe("success");
    // Each batch's own ask beside its answer, and not one more: the slot came with the message.
    expect(requests["FlowShardDO.ask"]).toBe(2);
    expect(requests["ChatDO.flowGranted"]).toBe(1);
    expect(requests["ChatDO.flowOffered"] ?? 0).toBe(0);
    expect(requests["ChatDO.alarm"] ?? 0).toBe(0);
  });

  it("starts a granted call that would report back along the chain (a Worker invocation's) by its queue copy", async () => {
    // A 20 s deadline goes to a Worker invocation the chat starts, not the calls queue.
    const { state, requests } = await handOff("chain", { job_timeout: 20 });
    expect(state).toBe("success");
    expect(requests["ChatDO.flowGranted"]).toBe(1);
    // Not asked again, and no alarm: the grant let it go and its copy started it.
    expect(requests["FlowShardDO.ask"]).toBe(2);
    expect(requests["ChatDO.alarm"] ?? 0).toBe(0);
    expect(requests["ChatDO.takeQueued"]).toBeGreaterThanOrEqual(1);
  });
});

describe("a subagent's model requests", () => {
  it("cost each a queue message, a runner's claim and reply, and the rows of its ask", async () => {
    const model = "billable-sub";
    await configure(agentConfig(model));
    const turns = [
      { tool_calls: [{ name: "echo", arguments: { turn: 1 } }] },
      { tool_calls: [{ name: "echo", arguments: { turn: 2 } }] },
      { content: "Done." },
    ];
    await scriptLlm(model, turns);
    await parallel("sub-warm", {
      tool_calls: [call("call_subordinate", { message: "Warm up.", reset: true })],
      timeout: 20,
    });
    await scriptLlm(model, turns);
    await new Promise((r) => setTimeout(r, 300));
    const meter = await startMeter();
    try {
      const { body } = await parallel("sub-meter", {
        tool_calls: [call("call_subordinate", { message: "Take three turns.", reset: true })],
        timeout: 20,
      });
      expect(body.jobs[0].result).toBe("Done.");
      await eventually(async () => meter.counts.queued >= 3); // the subagent's and its two echo calls' queue copies
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      meter.stop();
    }
    const { counts } = meter;
    const rows =
      counts.statements.reduce((sum, [, c]) => sum + c.rowsWritten, 0) + counts.kvWrites + counts.alarmWrites;
    const requests = Object.values(counts.requests).reduce((a, b) => a + b, 0);
    console.log(
      "a subagent of three model requests",
      JSON.stringify({
        rows,
        requests,
        queueMessages: counts.queueMessages,
        consumerBatches: counts.consumerBatches,
        byName: counts.requests,
      }),
    );
    // Per model request: its `calls` message, the runner's claim and its reply (no renewal: these
    // answer at once). The other messages are the subagent job's queue copy and each echo call's.
    expect(counts.requests["ChatDO.claimModelAsk"]).toBe(3);
    expect(counts.requests["ChatDO.modelReplied"]).toBe(3);
    expect(counts.requests["ChatDO.renewModelAsk"] ?? 0).toBe(0);
    expect(counts.queueMessages).toBe(6);
    // 222 measured; 205 when the chat made its model requests itself. Each request's 5.7 more: its ask
    // written, claimed and taken (3), the `agent` timer set to the ask's check and cleared at the
    // reply (2), and now and then the alarm moved with it.
    expect(rows).toBeLessThanOrEqual(225);
  });
});
