/**
 * Companion routes (docs/api.md#companion-routes): jobs list and records, extras, log rows,
 * chat info and listing, deletion, and 404s that create nothing.
 */
import { env, evictDurableObject, listDurableObjectIds, reset, runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { REGISTER_RETRY_MS } from "../../durable-objects/chat/registration";
import { swapEnv } from "../faults";
import { api, call, chatObject, configure, eventually, json, jobRow, parallel } from "../helpers";

beforeEach(() => configure());
afterEach(() => reset());

describe("reads of a chat that does not exist", () => {
  it("answer 404 chat_not_found and create no storage", async () => {
    const before = (await listDurableObjectIds(env.CHAT)).length;
    for (const path of ["", "/jobs", "/jobs/x-1", "/extras", "/log"]) {
      const res = await api(`/v1/chats/nobody${path}`);
      expect(res.status, path).toBe(404);
      expect((await json(res)).error.code).toBe("chat_not_found");
    }
    expect((await api("/v1/chats/nobody", { method: "DELETE" })).status).toBe(404);
    const { runInDurableObject } = await import("cloudflare:test");
    const tables = await runInDurableObject(env.CHAT.getByName("chat/acme/nobody"), (_i, s) =>
      s.storage.sql.exec("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE '_cf%'").toArray(),
    );
    expect(tables).toEqual([]);
    expect(before).toBeGreaterThanOrEqual(0);
  });
});

describe("jobs", () => {
  it("lists active and uncollected jobs; a record stays readable after collection", async () => {
    const bg = await parallel("p1", { tool_calls: [call("echo", { a: 1 }), call("hang")], wait: false });
    const [echoId, hangId] = bg.body.jobs.map((j: any) => j.job_id);
    await eventually(async () => (await jobRow("p1", echoId))?.state === "success");
    const listed = await json(await api("/v1/chats/p1/jobs"));
    expect(listed.jobs.map((j: any) => j.job_id)).toEqual([echoId, hangId]);
    expect(listed.jobs[0].result).toBe('{"a":1}');

    await parallel("p1", { action: "collect", job_ids: [echoId] });
    const after = await json(await api("/v1/chats/p1/jobs"));
    expect(after.jobs.map((j: any) => j.job_id)).toEqual([hangId]);

    const record = await json(await api(`/v1/chats/p1/jobs/${echoId}`));
    expect(Object.keys(record)).toEqual([
      "job_id",
      "chat_id",
      "batch_id",
      "index",
      "tool_name",
      "tool_call_id",
      "tool_args",
      "kind",
      "state",
      "created_at",
      "started_at",
      "completed_at",
      "attempt",
      "deadline_at",
      "result",
      "result_truncated",
      "content",
      "error",
      "error_type",
      "retryable",
      "context_id",
      "rerun_of",
      "usage",
      "collected_at",
      "metadata",
      "waiting_for",
      "flow",
      "approval_expires_at",
      "waited",
      "approval",
    ]);
    expect(record).toMatchObject({
      job_id: echoId,
      chat_id: "p1",
      index: 0,
      tool_name: "echo",
      tool_args: { a: 1 },
      kind: "tool",
      state: "success",
      attempt: 1,
    });
    expect(record.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(record.collected_at).not.toBeNull();
    expect((await api("/v1/chats/p1/jobs/missing-1")).status).toBe(404);
    await parallel("p1", { action: "cancel", job_ids: [hangId] });
  });
});

describe("extras", () => {
  it("lists running jobs first, then finished ones to collect; 204 when nothing is left", async () => {
    const bg = await parallel("x1", { tool_calls: [call("echo"), call("hang")], wait: false });
    const [echoId, hangId] = bg.body.jobs.map((j: any) => j.job_id);
    await eventually(
      async () =>
        (await jobRow("x1", echoId))?.state === "success" && (await jobRow("x1", hangId))?.state === "running",
    );
    const res = await api("/v1/chats/x1/extras");
    expect(res.headers.get("content-type")).toContain("text/plain");
    const lines = (await res.text()).split("\n");
    expect(lines[0]).toBe("parallel jobs:");
    expect(lines[1]).toBe("running:");
    expect(lines[2]).toMatch(new RegExp(`^- ${hangId}: hang \\[running\\], running for \\d+\\.\\ds$`));
    expect(lines[3]).toBe("ready to collect with `parallel` and `job_ids`:");
    expect(lines[4]).toMatch(new RegExp(`^- ${echoId}: echo \\[success\\], duration \\d+\\.\\ds$`));
    expect(lines[5]).toBe(
      'call the `parallel` tool with `job_ids` to await/collect results or `action: "cancel"` to cancel.',
    );
    await parallel("x1", { action: "cancel", job_ids: [hangId, echoId] });
    expect((await api("/v1/chats/x1/extras")).status).toBe(204);
  });
});

describe("log rows", () => {
  it("has one row per job, written at start and filled at completion", async () => {
    await parallel("l1", {
      tool_calls: [call("echo", { q: 1 }), call("wait", { seconds: 0.01 }), call("refuse"), call("text")],
    });
    const { rows } = await json(await api("/v1/chats/l1/log"));
    expect(rows).toHaveLength(4);
    expect(Object.keys(rows[0])).toEqual([
      "id",
      "job_id",
      "type",
      "heading",
      "kvps",
      "content",
      "created_at",
      "updated_at",
    ]);
    expect(rows.map((r: any) => r.type)).toEqual(["tool", "progress", "tool", "tool"]);
    expect(rows[0].kvps).toEqual({ q: 1 });
    expect(rows.map((r: any) => r.content)).toEqual([
      '{"q":1}',
      "Waited 0.01 seconds.",
      "Error: tool says no",
      "plain answer",
    ]);
  });
});

describe("job records, a page at a time", () => {
  it("lists a chat's records newest first, without content, and pages with next_before", async () => {
    const first = await parallel("pages-1", { tool_calls: [call("echo", { a: 0 }), call("echo", { a: 1 })] });
    const second = await parallel("pages-1", {
      tool_calls: [call("echo", { b: 0 }), call("echo", { b: 1 }), call("echo", { b: 2 })],
    });
    const ids = (body: any) => body.jobs.map((j: any) => j.job_id);
    // Newest batch first; inside a batch, the last call first.
    const expected = [...ids(second.body).reverse(), ...ids(first.body).reverse()];
    const page1 = await json(await api("/v1/chats/pages-1/job-records?limit=2"));
    expect(page1.records.map((r: any) => r.job_id)).toEqual(expected.slice(0, 2));
    expect(page1.records[0]).toMatchObject({ state: "success", tool_name: "echo", index: 2 });
    expect(page1.records[1]).toMatchObject({ index: 1, batch_id: page1.records[0].batch_id });
    expect(page1.records[0]).not.toHaveProperty("content");
    expect(page1.next_before).toBe(expected[1]);
    const page2 = await json(await api(`/v1/chats/pages-1/job-records?limit=2&before=${page1.next_before}`));
    const page3 = await json(await api(`/v1/chats/pages-1/job-records?limit=2&before=${page2.next_before}`));
    expect([...page2.records, ...page3.records].map((r: any) => r.job_id)).toEqual(expected.slice(2));
    expect(page3.next_before).toBeNull();
    // The default page holds them all.
    expect((await json(await api("/v1/chats/pages-1/job-records"))).records).toHaveLength(5);
  });

  it("refuses a limit outside 1-100, and answers 404 for a chat that does not exist", async () => {
    for (const limit of ["0", "101", "ten"]) {
      const res = await api(`/v1/chats/pages-1/job-records?limit=${limit}`);
      expect(res.status).toBe(400);
      expect((await json(res)).error.code).toBe("invalid_limit");
    }
    expect((await api("/v1/chats/no-such-chat/job-records")).status).toBe(404);
  });
});

describe("chats", () => {
  it("shows chat info and lists the tenant's chats", async () => {
    await parallel("room-b", { tool_calls: [call("echo")] });
    const before = Date.now();
    await parallel("room-a", { tool_calls: [call("hang")], wait: false });
    const info = await json(await api("/v1/chats/room-a"));
    const { last_activity, ...rest } = info;
    expect(rest).toEqual({
      chat_id: "room-a",
      parent_chat_id: null,
      level: 0,
      name: "room-a",
      children: [],
      running_jobs: 1,
      waiting_jobs: expect.any(Number), // 1 until its claim, then 0 (approvals.test.ts holds one there)
    });
    // Its job's acceptance or claim, whichever came last: the dashboard orders chats by it.
    expect(Date.parse(last_activity)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(last_activity)).toBeLessThanOrEqual(Date.now());
    const list = await eventually(async () => {
      const l = await json(await api("/v1/chats?limit=1"));
      return l.chats.length === 1 && l.next_cursor ? l : undefined;
    });
    expect(list.chats[0].chat_id).toBe("room-a");
    const next = await json(await api(`/v1/chats?limit=1&cursor=${list.next_cursor}`));
    expect(next.chats.map((c: any) => c.chat_id)).toEqual(["room-b"]);
    expect((await api("/v1/chats?limit=500")).status).toBe(400);
  });

  it("lists a new chat even when its first index write fails: the alarm writes it again", async () => {
    await swapEnv(chatObject("late-index"), (real) => ({
      TENANT: {
        getByName: (name: string) => {
          const stub = real.TENANT.getByName(name);
          return {
            runTargets: (names: string[]) => stub.runTargets(names),
            registerChat: () => Promise.reject(new Error("tenant briefly unavailable")),
          };
        },
      },
    }));
    await parallel("late-index", { tool_calls: [call("echo")] });
    const listed = async () => (await json(await api("/v1/chats"))).chats.some((c: any) => c.chat_id === "late-index");
    expect(await listed()).toBe(false);
    await evictDurableObject(chatObject("late-index")); // the real binding back
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + REGISTER_RETRY_MS + 1_000);
    expect(await runDurableObjectAlarm(chatObject("late-index"))).toBe(true);
    vi.useRealTimers();
    await eventually(listed);
  });

  it("sends a new chat's first events on their own when the index entry that carries them fails", async () => {
    const published: string[] = [];
    await swapEnv(chatObject("late-events"), (real) => ({
      TENANT: {
        getByName: (name: string) => {
          const stub = real.TENANT.getByName(name);
          return {
            runTargets: (names: string[]) => stub.runTargets(names),
            registerChat: () => Promise.reject(new Error("tenant briefly unavailable")),
            publish: (messages: (string | { live: string })[]) => {
              for (const m of messages) if (typeof m === "string") published.push(JSON.parse(m).type);
              return stub.publish(messages);
            },
          };
        },
      },
    }));
    await parallel("late-events", { tool_calls: [call("echo")] });
    await eventually(async () => published[0] === "chat.created");
    await evictDurableObject(chatObject("late-events")); // the real binding back
  });

  it("DELETE cancels running jobs and removes the chat", async () => {
    const bg = await parallel("gone", { tool_calls: [call("hang")], wait: false });
    const res = await api("/v1/chats/gone", { method: "DELETE" });
    expect(res.status).toBe(200);
    expect((await api("/v1/chats/gone")).status).toBe(404);
    const awaited = await parallel("gone", { action: "await", job_ids: [bg.body.jobs[0].job_id] });
    expect(awaited.body.error.code).toBe("unknown_job_ids");
    const list = await json(await api("/v1/chats"));
    expect(list.chats.map((c: any) => c.chat_id)).not.toContain("gone");
  });
});

describe("openapi.json", () => {
  it("is generated from the schemas and describes the parallel route", async () => {
    const doc = await json(await api("/openapi.json", { key: null }));
    const op = doc.paths["/v1/chats/{chat_id}/parallel"].post;
    expect(op.requestBody.content["application/json"].schema.properties).toHaveProperty("tool_calls");
    expect(op.parameters.map((p: any) => [p.name, p.in])).toEqual([
      ["chat_id", "path"],
      ["agent", "query"],
      ["callback_url", "query"],
      ["notify", "query"],
      ["metadata", "query"],
      ["budget", "query"],
      ["Fanout-Metadata", "header"],
      ["traceparent", "header"],
      ["tracestate", "header"],
    ]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/config",
        "/v1/chats/{chat_id}/jobs/{job_id}",
        "/v1/chats/{chat_id}/log",
        "/v1/chats/{chat_id}/tool-calls",
        "/v1/chats/{chat_id}/spawn",
        "/v1/tools",
        "/v1/telemetry",
      ]),
    );
    const entry = doc.paths["/v1/chats/{chat_id}/tool-calls"].post.responses["200"].content["application/json"].schema;
    expect(entry.properties.results.items.properties).toHaveProperty("job_ids");
    expect(JSON.stringify(doc)).not.toContain("$schema");
  });
});
