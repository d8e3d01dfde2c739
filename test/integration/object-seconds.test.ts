/**
 * Object-seconds per job, counted in the real runtime: how long each Durable
 * Object has a request or an outbound call open, the wall-clock time
 * Cloudflare bills an object for (docs/architecture.md#platform-rules). Every
 * object's entry points are timed, and every outbound fetch is timed and put
 * where it waited: a tool call on the runner object its row names, or on no
 * object when a Worker runner held it (docs/architecture.md#where-a-call-runs);
 * a model request on its subagent's chat. An object's seconds are the union of
 * its intervals, so calls that overlap count once. docs/benchmarks.md turns
 * the figures into dollars.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { env, reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { BudgetDO } from "../../durable-objects/budget/BudgetDO";
import { ChatDO } from "../../durable-objects/chat/ChatDO";
import { FlowShardDO } from "../../durable-objects/flow/FlowShardDO";
import { CallRunnerDO } from "../../durable-objects/runner/CallRunnerDO";
import { TenantDO } from "../../durable-objects/tenant/TenantDO";
import { callRunnerName } from "../../src/core/objects/names";
import { WORKER_RUNNER } from "../../src/core/runner/lease";
import { agentConfig, api, call, configure, jobRow, json, parallel, scriptLlm, toolServer } from "../helpers";

afterEach(() => reset());

type Span = [number, number];

/**
 * Times every object's requests and every outbound fetch, by the object they belong to; `stop()`
 * puts everything back. A model request is put on the object whose request it was made in (none,
 * when a Worker runner made it): each object's entry points run inside an async context naming it.
 */
function startDurationMeter() {
  const spans = new Map<string, Span[]>();
  const inObject = new AsyncLocalStorage<string>();
  const undo: (() => void)[] = [];
  const add = (key: string, from: number) => {
    const list = spans.get(key) ?? [];
    list.push([from, Date.now()]);
    spans.set(key, list);
  };
  const timed = <T>(key: string, run: () => T): T => {
    const from = Date.now();
    let result: T;
    try {
      result = run();
    } catch (e) {
      add(key, from);
      throw e;
    }
    if (result instanceof Promise) return result.finally(() => add(key, from)) as T;
    add(key, from);
    return result;
  };
  for (const [label, cls] of [
    ["ChatDO", ChatDO],
    ["TenantDO", TenantDO],
    ["CallRunnerDO", CallRunnerDO],
    ["FlowShardDO", FlowShardDO],
    ["BudgetDO", BudgetDO],
  ] as const) {
    for (const name of Object.getOwnPropertyNames(cls.prototype)) {
      if (name === "constructor" || typeof Object.getOwnPropertyDescriptor(cls.prototype, name)?.value !== "function")
        continue;
      const orig = (cls.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!;
      (cls.prototype as unknown as Record<string, unknown>)[name] = function (
        this: { ctx: DurableObjectState },
        ...a: unknown[]
      ) {
        const key = `${label}:${this.ctx.id.toString()}`;
        return inObject.run(key, () => timed(key, () => orig.apply(this, a)));
      };
      undo.push(() => ((cls.prototype as unknown as Record<string, unknown>)[name] = orig));
    }
  }
  const fetchBefore = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    timed(outboundKey(input, init, inObject.getStore()), () => fetchBefore(input, init))) as typeof fetch;
  undo.push(() => (globalThis.fetch = fetchBefore));
  return {
    spans,
    stop: () => {
      for (const f of undo.reverse()) f();
    },
  };
}

const chatKey = (chat: string) => `ChatDO:${env.CHAT.idFromName(`chat/acme/${chat}`).toString()}`;

/**
 * A tool call carries its chat and job (placed once the rows say where it ran); a model request
 * is keyed by the object it was made in (`llm@` and nothing after it: no object).
 */
function outboundKey(input: RequestInfo | URL, init?: RequestInit, object?: string): string {
  const url = String(input instanceof Request ? input.url : input);
  const body = typeof init?.body === "string" ? init.body : "";
  if (url.includes("/llm/")) return `llm@${object ?? ""}`;
  try {
    const parsed = JSON.parse(body) as { chat_id?: string; job_id?: string };
    if (parsed.chat_id && parsed.job_id) return `call:${parsed.chat_id}:${parsed.job_id}`;
  } catch {
    /* not JSON: counted apart */
  }
  return `other:${url}`;
}

/** The union of intervals, in seconds: overlapping ones count once. */
function unionSeconds(list: Span[]): number {
  let total = 0;
  let end = -Infinity;
  for (const [from, to] of [...list].sort((a, b) => a[0] - b[0])) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total / 1000;
}

/** Where a call waited, from its row: a runner object, or (null) a Worker runner, which is no object. */
async function callObject(key: string): Promise<string | null> {
  const [, chat, jobId] = key.split(":");
  const row = await jobRow(chat!, jobId!);
  if (row?.runner === WORKER_RUNNER) return null;
  if (typeof row?.runner !== "number") throw new Error(`no runner held ${jobId}: every call runs in one`);
  return `CallRunnerDO:${env.CALL_RUNNER.idFromName(callRunnerName("acme", chat!, row.runner)).toString()}`;
}

/**
 * Each object's seconds, with `same` naming keys that are one object (a model request and its subagent's
 * chat); a key named null waited in no object.
 */
function objectSeconds(spans: Map<string, Span[]>, same: Record<string, string | null> = {}): Map<string, number> {
  const byObject = new Map<string, Span[]>();
  for (const [key, list] of spans) {
    const object = key in same ? (same[key] as string | null) : key;
    if (object === null) continue;
    byObject.set(object, [...(byObject.get(object) ?? []), ...list]);
  }
  return new Map([...byObject].map(([object, list]) => [object, unionSeconds(list)]));
}

const sleeps = (n: number, ms: number) => Array.from({ length: n }, () => call("sleep", { ms }));
const PRICE_PER_MILLION_OBJECT_SECONDS = 12.5 * 0.125; // $12.50 per million GB-s, at 128 MB

describe("object-seconds per job", () => {
  it("count what waiting costs each object: 0.2 s, 5 s and 60 s calls, and a subagent's three 10-second model turns", async () => {
    const model = "object-seconds-sub";
    // Telemetry with none of fanout's own traces kept: the `-traced` chats' batches come with a
    // sampled traceparent, so only theirs are traced and exported (docs/api.md#traces).
    await configure(
      agentConfig(model, {
        telemetry: { otlp: { url: `${toolServer()}/otlp/object-seconds/v1/traces` }, sample_ratio: 0 },
      }),
    );
    await scriptLlm(model, [
      { tool_calls: [{ name: "echo", arguments: { turn: 1 } }], delay_ms: 10_000 },
      { tool_calls: [{ name: "echo", arguments: { turn: 2 } }], delay_ms: 10_000 },
      { content: "Done after three turns.", delay_ms: 10_000 },
    ]);
    // Named `os-<length>-<wait>`: the report's rows drop the prefix (4 calls of 0.2 s, of 5 s; one of 60 s).
    const scenarios = [
      { chat: "os-short-wait", jobs: 4, calls: sleeps(4, 200), wait: true },
      { chat: "os-short-nowait", jobs: 4, calls: sleeps(4, 200), wait: false },
      { chat: "os-5s-wait", jobs: 4, calls: sleeps(4, 5_000), wait: true },
      { chat: "os-5s-nowait", jobs: 4, calls: sleeps(4, 5_000), wait: false },
      { chat: "os-60s-wait", jobs: 1, calls: sleeps(1, 60_000), wait: true },
      { chat: "os-60s-nowait", jobs: 1, calls: sleeps(1, 60_000), wait: false },
      { chat: "os-short-wait-traced", jobs: 4, calls: sleeps(4, 200), wait: true, traced: true },
      { chat: "os-5s-wait-traced", jobs: 4, calls: sleeps(4, 5_000), wait: true, traced: true },
    ];
    const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const meter = startDurationMeter();
    let context = "";
    try {
      const started = Date.now();
      const spawn = api("/v1/chats/os-sub/spawn", { method: "POST", body: { task: "Take three turns." } }).then(json);
      await Promise.all([
        ...scenarios.map(async (s) => {
          const headers: Record<string, string> = "traced" in s ? { traceparent: TRACEPARENT } : {};
          const { body } = await parallel(s.chat, { tool_calls: s.calls, wait: s.wait, timeout: 80 }, { headers });
          expect(body.status).toBe(s.wait ? "success" : "started");
        }),
        spawn.then((answer) => (context = answer.jobs[0].context_id)),
      ]);
      // The calls that were not waited for, and the subagent's 30 s of model turns, end by 66 s.
      await new Promise((r) => setTimeout(r, Math.max(0, started + 66_000 - Date.now())));
    } finally {
      meter.stop();
    }
    // Every job had ended while the meter ran (read after it stopped, so the reads count nowhere).
    for (const chat of [...scenarios.map((s) => s.chat), "os-sub"]) {
      const { jobs } = await json(await api(`/v1/chats/${chat}/jobs`));
      expect(
        jobs.filter((j: { state: string }) => j.state === "pending" || j.state === "running"),
        chat,
      ).toEqual([]);
    }
    const calls = [...meter.spans.keys()].filter((key) => key.startsWith("call:"));
    const placed = Object.fromEntries(
      await Promise.all(calls.map(async (key) => [key, await callObject(key)] as const)),
    );
    const inWorkers = calls.filter((key) => placed[key] === null).length;
    const models = Object.fromEntries(
      [...meter.spans.keys()].filter((key) => key.startsWith("llm@")).map((key) => [key, key.slice(4) || null]),
    );
    const allModelRequests = Object.keys(models).reduce((n, key) => n + meter.spans.get(key)!.length, 0);
    const seconds = objectSeconds(meter.spans, { ...placed, ...models });
    const rows = Object.fromEntries(
      scenarios.map((s) => [s.chat.replace(/^os-/, ""), (seconds.get(chatKey(s.chat)) ?? 0) / s.jobs]),
    );
    const child = seconds.get(chatKey(context)) ?? 0;
    const parent = seconds.get(chatKey("os-sub")) ?? 0;
    const inRunners = meter.spans.get("llm@")?.length ?? 0;
    const report = {
      perJob: rows,
      subagent: { child, parent, perModelRequest: child / 3 },
      callsInWorkers: `${inWorkers}/${calls.length}`,
      modelRequestsInWorkers: `${inRunners}/${allModelRequests}`,
      dollarsPerMillionObjectSeconds: PRICE_PER_MILLION_OBJECT_SECONDS,
    };
    // One line, which the bench reads (bench/lib/object-seconds.mjs).
    console.log(`object-seconds ${JSON.stringify(report)}`);

    // Every call waited in a Worker runner, and every waiting request in the worker: a chat is
    // billed its admission, the claims, the reports and the answer, a small part of a call's
    // length (it would be the whole of it, overlapping calls once). Target at 5 s calls: 0.05.
    expect(inWorkers).toBe(calls.length);
    for (const wait of ["wait", "nowait"]) {
      expect(rows[`5s-${wait}`]).toBeLessThanOrEqual(0.05);
      expect(rows[`60s-${wait}`]).toBeLessThan(0.01 * 60);
    }
    // The subagent's three model requests were made in Worker runners, none in an object: its chat
    // is billed each step's bookkeeping, not its model's 10 s. Target: 0.1 per model request.
    // A traced batch hands its spans to an exporter invocation and waits on nothing more: the same
    // object-seconds as untraced, within the meter's resolution.
    expect(rows["short-wait-traced"]).toBeLessThanOrEqual(rows["short-wait"]! + 0.01);
    expect(rows["5s-wait-traced"]).toBeLessThanOrEqual(Math.max(rows["5s-wait"]! + 0.01, 0.05));
    expect(inRunners).toBe(3);
    expect(allModelRequests).toBe(3);
    expect(child / 3).toBeLessThanOrEqual(0.1);
  }, 120_000);
});
