/**
 * Admission over HTTP (docs/api.md#arguments-and-call-shapes, docs/api.md#validation-order-and-errors,
 * docs/api.md#idempotency): error bodies and statuses,
 * atomic validation (a rejected request changes nothing), the active-job cap,
 * request metadata, idempotency.
 */
import { env, reset } from "cloudflare:test";
import { configSchema } from "../../src/core/config/schema";
import { tenantName } from "../../src/core/objects/names";
import { TEST_KEYS } from "../setup/bindings";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { api, call, configure, json, parallel, toolCalls, toolConfig } from "../helpers";

beforeEach(() => configure());
afterEach(() => reset());

const jobsIn = async (chat: string) => {
  const res = await api(`/v1/chats/${chat}/jobs`);
  return res.status === 404 ? [] : (await json(res)).jobs;
};

describe("bad input", () => {
  it("refuses bodies that are not a JSON object", async () => {
    for (const rawBody of ["", "not json", "[1,2]", "42", '"text"', "null"]) {
      const res = await api("/v1/chats/a1/parallel", { rawBody });
      expect(res.status, rawBody).toBe(400);
      expect(await json(res)).toEqual({
        status: "error",
        error: { code: "invalid_json", message: "Request body must be a JSON object." },
      });
    }
  });

  it("parses the body as JSON whatever its Content-Type", async () => {
    const res = await api("/v1/chats/a1/parallel", {
      rawBody: JSON.stringify({ tool_calls: [call("echo")] }),
      headers: { "content-type": "text/plain" },
    });
    expect(res.status).toBe(200);
  });

  it("refuses bodies over max_body_bytes with 413", async () => {
    await configure(toolConfig({ limits: { max_body_bytes: 1000 } }));
    const res = await api("/v1/chats/a1/parallel", { body: { tool_calls: [call("echo", { pad: "x".repeat(2000) })] } });
    expect(res.status).toBe(413);
    expect((await json(res)).error).toEqual({ code: "payload_too_large", message: "Request body exceeds 1000 bytes." });
  });

  it("bounds max_body_bytes at 640 KiB, for a document stored before the bound too", async () => {
    const refused = await api("/v1/config", {
      method: "PUT",
      body: toolConfig({ limits: { max_body_bytes: 10_485_760 } }),
    });
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.message).toContain("limits.max_body_bytes");
    // As an older version stored it (for a tenant this isolate has not read yet): 10 MiB allowed.
    // A body past 640 KiB still answers 413.
    const stored = configSchema.parse({ ...toolConfig(), limits: {} });
    stored.limits.max_body_bytes = 10_485_760;
    await env.TENANT.getByName(tenantName("globex")).putConfig(stored);
    const body = { tool_calls: [call("echo", { pad: "x".repeat(1_100_000) })] };
    const res = await api("/v1/chats/a-big/parallel", { body, key: TEST_KEYS.globex });
    expect(res.status).toBe(413);
    expect((await json(res)).error.message).toBe("Request body exceeds 655360 bytes.");
  });

  it("refuses JSON nested deeper than 32 levels", async () => {
    const deep = "[".repeat(40) + "]".repeat(40);
    const res = await api("/v1/chats/a1/parallel", { rawBody: `{"tool_calls":${deep}}` });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("invalid_json");
  });

  it("refuses request metadata written inside the tool arguments", async () => {
    for (const key of ["callback_url", "notify"]) {
      const res = await parallel("a1", { tool_calls: [call("echo")], [key]: "x" });
      expect(res.body.error).toEqual({
        code: "option_not_allowed_in_tool_args",
        message: `\`${key}\` is set by the bot, not the model: pass it as the query parameter ?${key}= (or the client's \`{ ${key === "callback_url" ? "callbackUrl" : key} }\` option), not inside tool arguments.`,
      });
    }
    expect(await jobsIn("a1")).toEqual([]);
  });

  it("refuses a callback_url whose origin is not allowed", async () => {
    const res = await parallel(
      "a1",
      { tool_calls: [call("echo")] },
      { query: "?callback_url=https://evil.example/hook" },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_callback_url");
  });

  it("refuses an unknown agent profile and lists the available ones", async () => {
    const res = await parallel("a1", { tool_calls: [call("echo")] }, { query: "?agent=ghost" });
    expect(res.body.error).toEqual({
      code: "unknown_profile",
      message: "Agent profile 'ghost' not found. Use one of the available profiles: default.",
    });
  });

  it("limits an agent to the tools its profile lists (wait is always there)", async () => {
    await configure(toolConfig({ agents: { reader: { tools: ["echo"] } } }));
    const ok = await parallel(
      "a1",
      { tool_calls: [call("echo"), call("wait", { seconds: 0.01 })] },
      { query: "?agent=reader" },
    );
    expect(ok.status).toBe(200);
    const res = await parallel("a1", { tool_calls: [call("text")] }, { query: "?agent=reader" });
    expect(res.body.error).toEqual({
      code: "unknown_tool",
      message: "tool_calls[0] uses unknown tool 'text'. Available tools: wait, echo, spawn_task, call_subordinate.",
    });
  });
});

describe("platform faults", () => {
  it("a broken Durable Object call answers 503 unavailable with Retry-After, never a bare 500", async () => {
    const { createExecutionContext, env } = await import("cloudflare:test");
    const { default: worker } = await import("../../src/index");
    const { TEST_KEYS } = await import("../setup/bindings");
    const brokenChats = {
      getByName: () => ({
        startBatch: () => Promise.reject(new Error("Durable Object reset because its code was updated.")),
      }),
    };
    const res = await worker.fetch(
      new Request("https://fanout.test/v1/chats/p/parallel", {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_KEYS.acme}` },
        body: JSON.stringify({ tool_calls: [call("echo")] }),
      }),
      { ...env, CHAT: brokenChats } as unknown as Env,
      createExecutionContext(),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect((await json(res)).error.code).toBe("unavailable");
  });
});

describe("waiting", () => {
  it("never waits longer than max_wait_seconds, whatever timeout asks", async () => {
    await configure(toolConfig({ limits: { max_wait_seconds: 1 } }));
    const res = await parallel("w1", { tool_calls: [call("sleep", { ms: 2500 })], timeout: 300 });
    expect(res.body).toMatchObject({
      status: "waiting",
      wait_timeout: true,
      jobs: [{ state: "running", wait_timed_out: true }],
    });
    const later = await parallel("w1", { action: "await", job_ids: [res.body.jobs[0].job_id], timeout: 5 });
    expect(["waiting", "success"]).toContain(later.body.status);
  });

  it("a tool schema that cannot be applied is a clear 400 when it is stored, not a fault when it is used", async () => {
    const res = await api("/v1/config", {
      method: "PUT",
      body: {
        tools: [
          {
            name: "picky",
            url: "https://t.example",
            parameters: { type: "object", properties: { s: { type: "string", pattern: "(" } } },
          },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain(
      'tools[0].parameters/properties/s/pattern "(" is not a valid regular expression',
    );
  });
});

describe("atomic validation", () => {
  it("a batch with one invalid call starts none of them", async () => {
    const res = await parallel("a2", { tool_calls: [call("echo", { first: true }), call("sleep", { ms: "soon" })] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_tool_calls");
    expect(res.body.error.message.startsWith("tool_calls[1] is not a valid tool call: /ms ")).toBe(true);
    expect(await jobsIn("a2")).toEqual([]);
    expect((await api("/v1/chats/a2")).status).toBe(404);
  });

  it("unknown job_ids next to new calls start nothing", async () => {
    const res = await parallel("a2", { job_ids: ["ghost-1"], tool_calls: [call("echo")] });
    expect(res.body.error).toMatchObject({ code: "unknown_job_ids", message: "Unknown parallel job id(s): ghost-1" });
    expect(await jobsIn("a2")).toEqual([]);
  });

  it("a batch over the active-job cap is refused whole with 429", async () => {
    await configure(toolConfig({ limits: { max_active_jobs_per_chat: 3 } }));
    const first = await parallel("a3", { tool_calls: [call("hang"), call("hang")], wait: false });
    const ids = first.body.jobs.map((j: any) => j.job_id);
    const res = await parallel("a3", { tool_calls: [call("echo"), call("echo")] });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({
      code: "job_limit",
      message: "Chat already has 2 active jobs (limit 3); await or cancel some first.",
    });
    expect((await jobsIn("a3")).map((j: any) => j.job_id)).toEqual(ids);
    await parallel("a3", { action: "cancel", job_ids: ids });
    expect((await parallel("a3", { tool_calls: [call("echo"), call("echo")] })).status).toBe(200);
  });

  it("refuses more than max_calls items and more than max_job_ids ids", async () => {
    const calls = Array.from({ length: 9 }, () => call("echo"));
    const tooMany = await parallel("a2", { tool_calls: calls });
    expect(tooMany.body.error.message).toBe("`tool_calls` supports at most 8 items.");
    const ids = Array.from({ length: 65 }, (_, i) => `id-${i}`);
    const tooManyIds = await parallel("a2", { job_ids: ids });
    expect(tooManyIds.body.error.code).toBe("invalid_job_ids");
  });
});

describe("Idempotency-Key", () => {
  const withKey = (key: string) => ({ headers: { "idempotency-key": key } });

  it("the same key and body return the same jobs and run them once", async () => {
    const body = { tool_calls: [call("echo", { once: 1 })] };
    const first = await parallel("i1", body, withKey("k-1"));
    const second = await parallel("i1", body, withKey("k-1"));
    expect(second.body).toEqual(first.body);
    expect(await toolCalls(first.body.jobs[0].job_id)).toHaveLength(1);
    expect(await jobsIn("i1")).toEqual([]);
  });

  it("a replay of a background start answers the started shape with the same ids", async () => {
    const body = { tool_calls: [call("hang")], wait: false };
    const first = await parallel("i1", body, withKey("k-2"));
    const again = await parallel("i1", { wait: false, tool_calls: [call("hang")] }, withKey("k-2"));
    expect(again.body.status).toBe("started");
    expect(again.body.jobs.map((j: any) => j.job_id)).toEqual(first.body.jobs.map((j: any) => j.job_id));
    expect(await jobsIn("i1")).toHaveLength(1);
    await parallel("i1", { action: "cancel", job_ids: first.body.jobs[0].job_id });
  });

  it("the same key with a different body is a 409", async () => {
    await parallel("i1", { tool_calls: [call("echo", { a: 1 })] }, withKey("k-3"));
    const res = await parallel("i1", { tool_calls: [call("echo", { a: 2 })] }, withKey("k-3"));
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({
      code: "idempotency_conflict",
      message: "Idempotency-Key 'k-3' was used with a different request.",
    });
  });

  it("the same key with a different agent or callback is a different request", async () => {
    await configure(toolConfig({ agents: { other: {} } }));
    const body = { tool_calls: [call("echo")] };
    await parallel("i1", body, withKey("k-4"));
    const res = await parallel("i1", body, { ...withKey("k-4"), query: "?agent=other" });
    expect(res.status).toBe(409);
  });

  it("is scoped per chat", async () => {
    const body = { tool_calls: [call("echo")] };
    const a = await parallel("i1", body, withKey("k-5"));
    const b = await parallel("i2", body, withKey("k-5"));
    expect(b.body.jobs[0].job_id).not.toBe(a.body.jobs[0].job_id);
  });

  it("refuses keys that are not 1-255 printable ASCII", async () => {
    const res = await parallel("i1", { tool_calls: [call("echo")] }, withKey("x".repeat(256)));
    expect(res.body.error.code).toBe("invalid_idempotency_key");
    expect(await jobsIn("i1")).toEqual([]);
  });
});
