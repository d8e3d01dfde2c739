/**
 * Tools a job can run (docs/api.md#tools-a-job-can-run), against a real local HTTP server: the signed
 * request a tenant tool receives, how its answer becomes a result, the retry
 * rules, and the built-in `http_request`.
 */
import { reset } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, configure, parallel, toolCalls, toolConfig, toolServer } from "../helpers";

const TOOL_SECRET = "whsec_dGVzdC1zZWNyZXQtZm9yLXRvb2xz";

beforeEach(() => configure());
afterEach(() => reset());

async function expectedSignature(secret: string, id: string, timestamp: string, body: string) {
  const raw = Uint8Array.from(atob(secret.slice("whsec_".length)), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`;
}

describe("tenant HTTP tools", () => {
  it("POSTs the documented body with an idempotency key and a Standard Webhooks signature", async () => {
    const { body } = await parallel("t1", { tool_calls: [call("echo", { q: "x" })] });
    const job = body.jobs[0];
    const [received] = await toolCalls(job.job_id);
    expect(received).toBeDefined();
    const sent = JSON.parse(received!.body);
    expect(Object.keys(sent)).toEqual(["tool_name", "tool_args", "job_id", "chat_id", "attempt"]);
    expect(sent).toEqual({ tool_name: "echo", tool_args: { q: "x" }, job_id: job.job_id, chat_id: "t1", attempt: 1 });
    const h = received!.headers;
    expect(h["content-type"]).toBe("application/json");
    expect(h["idempotency-key"]).toBe(job.job_id);
    expect(h["webhook-id"]).toBe(`${job.job_id}.1`);
    expect(h["webhook-timestamp"]).toMatch(/^\d+$/);
    expect(h["webhook-signature"]).toBe(
      await expectedSignature(TOOL_SECRET, h["webhook-id"]!, h["webhook-timestamp"]!, received!.body),
    );
  });

  it("reads result strings as is, other results as compact JSON, error strings as failures, anything else as text", async () => {
    const { body } = await parallel("t1", {
      tool_calls: [call("echo", { nested: { a: [1, 2] } }), call("refuse"), call("text"), call("other")],
    });
    expect(body.jobs.map((j: any) => [j.state, j.result ?? j.error])).toEqual([
      ["success", '{"nested":{"a":[1,2]}}'],
      ["error", "tool says no"],
      ["success", "plain answer"],
      ["success", '{"other":1}'],
    ]);
  });

  it("does not follow redirects", async () => {
    const { body } = await parallel("t1", { tool_calls: [call("redirect")] });
    expect(body.jobs[0].state).toBe("error");
    expect(body.jobs[0].error).toMatch(/^HTTP 302: /);
    const calls = (await (await fetch(`${toolServer()}/__calls`)).json()) as {
      path: string;
      headers: Record<string, string>;
    }[];
    expect(calls.filter((c) => c.headers["idempotency-key"] === body.jobs[0].job_id).map((c) => c.path)).toEqual([
      "/redirect",
    ]);
  });

  it("cuts long results to max_result_chars and keeps the full text on the job record", async () => {
    await configure(toolConfig({ limits: { max_result_chars: 100 } }));
    const { body } = await parallel("t1", { tool_calls: [call("big", { bytes: 5000 })] });
    expect(body.jobs[0].result).toHaveLength(100);
    expect(body.jobs[0].result_truncated).toBe(true);
    const { api, json } = await import("../helpers");
    const record = await json(await api(`/v1/chats/t1/jobs/${body.jobs[0].job_id}`));
    expect(record.result).toHaveLength(5000);
    expect(record.result_truncated).toBe(false);
  });

  it("cuts bodies beyond max_response_bytes", async () => {
    await configure(toolConfig({ limits: { max_response_bytes: 1000 } }));
    const { body } = await parallel("t1", { tool_calls: [call("big", { bytes: 50_000 })] });
    expect(body.jobs[0].state).toBe("success");
    const { api, json } = await import("../helpers");
    const record = await json(await api(`/v1/chats/t1/jobs/${body.jobs[0].job_id}`));
    expect(record.result).toHaveLength(1000);
  });

  it("reads a body of declared length whole within max_response_bytes, and cuts one declared beyond it", async () => {
    await configure(toolConfig({ limits: { max_response_bytes: 1000 } }));
    const { body } = await parallel("t1", {
      tool_calls: [
        call("big", { bytes: 1000, declared: true }),
        call("big", { bytes: 999, declared: true }),
        call("big", { bytes: 50_000, declared: true }),
      ],
    });
    expect(body.jobs.map((j: { state: string }) => j.state)).toEqual(["success", "success", "success"]);
    const { api, json } = await import("../helpers");
    const lengths = await Promise.all(
      body.jobs.map(
        async (j: { job_id: string }) => (await json(await api(`/v1/chats/t1/jobs/${j.job_id}`))).result.length,
      ),
    );
    expect(lengths).toEqual([1000, 999, 1000]);
  });

  it("cuts a compressed body by its decoded size, whatever length it declared", async () => {
    await configure(toolConfig({ limits: { max_response_bytes: 1000 } }));
    const { body } = await parallel("t1", { tool_calls: [call("gzip", { bytes: 50_000 })] });
    expect(body.jobs[0].state).toBe("success");
    const { api, json } = await import("../helpers");
    const record = await json(await api(`/v1/chats/t1/jobs/${body.jobs[0].job_id}`));
    expect(record.result).toBe("x".repeat(1000));
  });
});

describe("retries", () => {
  it("retries a read-only tool after 503 with a new attempt number and signature id", async () => {
    const { body } = await parallel("t1", { tool_calls: [call("flaky_read", { failures: 2 })] });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "ok on attempt 3" });
    const calls = await toolCalls(body.jobs[0].job_id);
    expect(calls.map((c) => JSON.parse(c.body).attempt)).toEqual([1, 2, 3]);
    expect(calls.map((c) => c.headers["webhook-id"])).toEqual([1, 2, 3].map((n) => `${body.jobs[0].job_id}.${n}`));
  });

  it("retries a side-effecting tool after a 503 answer (the tool said it did nothing)", async () => {
    const { body } = await parallel("t1", { tool_calls: [call("flaky_write", { failures: 1 })] });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "ok on attempt 2" });
  });

  it("never retries a side-effecting tool after a network error: outcome unknown", async () => {
    const { body } = await parallel("t1", { tool_calls: [call("drop_write")] });
    expect(body.jobs[0]).toMatchObject({
      state: "error",
      error: "Outcome unknown: the tool may have run; not retried.",
    });
    expect(await toolCalls(body.jobs[0].job_id)).toHaveLength(1);
  });

  it("retries a read-only tool after network errors while the deadline allows", async () => {
    const { body } = await parallel("t1", { tool_calls: [call("drop_read")], job_timeout: 3 });
    const calls = await toolCalls(body.jobs[0].job_id);
    expect(calls.length).toBeGreaterThan(1);
    expect(["error", "timeout"]).toContain(body.jobs[0].state);
  });

  it("does not retry a 404", async () => {
    const { body } = await parallel("t1", { tool_calls: [call("fail404")] });
    expect(body.jobs[0].error).toBe("HTTP 404: status 404");
    expect(await toolCalls(body.jobs[0].job_id)).toHaveLength(1);
  });
});

describe("http_request", () => {
  it("fetches an allowed origin and returns the body", async () => {
    const { body } = await parallel("t1", { tool_calls: [call("http_request", { url: `${toolServer()}/page` })] });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "page body (GET)" });
  });

  it("refuses an origin that is not allowed, before anything starts", async () => {
    const res = await parallel("t1", { tool_calls: [call("http_request", { url: "https://elsewhere.example/x" })] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      "tool_calls[0] is not a valid tool call: /url origin https://elsewhere.example is not in builtins.http_request.allowed_origins",
    );
  });

  it("is unknown while no origin is allowed", async () => {
    await configure({ tools: [] });
    const res = await parallel("t1", { tool_calls: [call("http_request", { url: `${toolServer()}/page` })] });
    expect(res.body.error).toEqual({
      code: "unknown_tool",
      message: "tool_calls[0] uses unknown tool 'http_request'. Available tools: wait, spawn_task, call_subordinate.",
    });
  });

  it("is never retried", async () => {
    const { body } = await parallel("t1", {
      tool_calls: [call("http_request", { url: `${toolServer()}/status/503` })],
    });
    expect(body.jobs[0]).toMatchObject({ state: "error", error: "HTTP 503: status 503" });
  });
});
