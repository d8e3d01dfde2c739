/**
 * Authentication, tenants and chat ids (docs/api.md#authentication-tenants-and-chats): keys, rotation, tenant
 * isolation, misconfiguration, public routes, CORS.
 */
import { createExecutionContext, env, reset } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { type TEST_BINDINGS, TEST_KEYS } from "../setup/bindings";
import { api, call, configure, json, parallel } from "../helpers";

beforeEach(async () => {
  await configure();
  await configure({ tools: [] }, TEST_KEYS.globex);
});
afterEach(() => reset());

const UNAUTHORIZED = { status: "error", error: { code: "unauthorized", message: "Missing or invalid API key." } };

async function withEnv(overrides: Partial<typeof TEST_BINDINGS>, path: string, init: RequestInit = {}) {
  const request = new Request(`https://fanout.test${path}`, init);
  return worker.fetch(request, { ...env, ...overrides } as Env, createExecutionContext());
}

describe("API keys", () => {
  it("answers 401 without detail for a missing, malformed or wrong key", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Basic abc" },
      { authorization: "Bearer nope" },
      { authorization: "Bearer" },
    ]) {
      const res = await api("/v1/config", { key: null, headers });
      expect(res.status).toBe(401);
      expect(await json(res)).toEqual(UNAUTHORIZED);
    }
  });

  it("accepts every key a tenant lists, so keys can be rotated", async () => {
    const started = await parallel("r1", { tool_calls: [call("echo")], wait: false });
    const id = started.body.jobs[0].job_id;
    const viaOther = await parallel("r1", { action: "await", job_ids: [id] }, { key: TEST_KEYS.acmeRotated });
    expect(viaOther.body.jobs[0].job_id).toBe(id);
  });

  it("never accepts a key in the URL", async () => {
    const res = await api(`/v1/config?key=${TEST_KEYS.acme}`, { key: null });
    expect(res.status).toBe(401);
  });
});

describe("tenant isolation", () => {
  it("another tenant cannot see, await or cancel a chat's jobs", async () => {
    const started = await parallel("shared-name", { tool_calls: [call("hang")], wait: false });
    const id = started.body.jobs[0].job_id;
    const other = { key: TEST_KEYS.globex };
    expect((await api("/v1/chats/shared-name", other)).status).toBe(404);
    expect((await api("/v1/chats/shared-name/jobs", other)).status).toBe(404);
    expect((await api(`/v1/chats/shared-name/jobs/${id}`, other)).status).toBe(404);
    const awaited = await parallel("shared-name", { action: "await", job_ids: [id] }, other);
    expect(awaited.body.error.code).toBe("unknown_job_ids");
    const cancelled = await parallel("shared-name", { action: "cancel", job_ids: [id] }, other);
    expect(cancelled.body.error.code).toBe("unknown_job_ids");
    const mine = await json(await api("/v1/chats/shared-name/jobs"));
    expect(mine.jobs[0]).toMatchObject({ job_id: id, state: expect.stringMatching(/pending|running/) });
    await parallel("shared-name", { action: "cancel", job_ids: [id] });
  });

  it("keeps each tenant's configuration apart", async () => {
    const acme = await json(await api("/v1/config"));
    const globex = await json(await api("/v1/config", { key: TEST_KEYS.globex }));
    expect(acme.tools.length).toBeGreaterThan(0);
    expect(globex.tools).toEqual([]);
  });
});

describe("misconfiguration", () => {
  const misconfigured = async (overrides: Partial<typeof TEST_BINDINGS>) => {
    const res = await withEnv(overrides, "/v1/config", { headers: { authorization: `Bearer ${TEST_KEYS.acme}` } });
    expect(res.status).toBe(503);
    const body = await json(res);
    expect(body.error.code).toBe("misconfigured");
    expect(JSON.stringify(body)).not.toContain(TEST_KEYS.acme);
  };

  it("answers 503 misconfigured when API_KEYS is missing or malformed", async () => {
    await misconfigured({ API_KEYS: "" });
    await misconfigured({ API_KEYS: "acme" });
    await misconfigured({ API_KEYS: "Bad Tenant:key" });
  });

  it("answers 503 misconfigured when one key is listed under two tenants", async () => {
    await misconfigured({ API_KEYS: `acme:${TEST_KEYS.acme},globex:${TEST_KEYS.acme}` });
  });

  it("answers 503 misconfigured when CONFIG_KEY is missing or not 32 bytes", async () => {
    await misconfigured({ CONFIG_KEY: "" });
    await misconfigured({ CONFIG_KEY: btoa("short") });
  });
});

describe("chat ids", () => {
  it("accepts the documented characters, percent-decoded", async () => {
    const res = await parallel("tg%3A-100123%40group.a_b!", { tool_calls: [call("echo")] });
    expect(res.status).toBe(200);
    expect((await api("/v1/chats/tg:-100123@group.a_b!")).status).toBe(200);
  });

  it("refuses ids that are too long, only dots, or use other characters", async () => {
    // (".." itself never reaches a route: URL parsing resolves it as a path segment.)
    for (const id of ["x".repeat(129), "...", "....", "a%20b", "a%2Fb", "emoji%F0%9F%98%80"]) {
      const res = await parallel(id, { tool_calls: [call("echo")] });
      expect(res.status, id).toBe(400);
      expect(res.body.error.code).toBe("invalid_chat_id");
    }
  });
});

describe("public routes", () => {
  it("serve health and the OpenAPI document without a key and reveal no tenant data", async () => {
    const health = await api("/healthz", { key: null });
    expect(await json(health)).toEqual({ status: "ok", service: "fanout" });
    const doc = await json(await api("/openapi.json", { key: null }));
    expect(doc.openapi).toBe("3.1.0");
    expect(JSON.stringify(doc)).not.toContain("acme");
    const root = await api("/", { key: null });
    expect(root.status).toBe(200);
  });
});

describe("CORS", () => {
  it("answers preflight for a listed origin and not for others", async () => {
    const ok = await api("/v1/config", {
      method: "OPTIONS",
      key: null,
      headers: { origin: "https://dash.example", "access-control-request-method": "GET" },
    });
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://dash.example");
    const other = await api("/v1/config", {
      method: "OPTIONS",
      key: null,
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("allows a listed origin's request, and answers a request without Origin as varying by it", async () => {
    const browser = await api("/v1/config", { headers: { origin: "https://dash.example" } });
    expect(browser.status).toBe(200);
    expect(browser.headers.get("access-control-allow-origin")).toBe("https://dash.example");
    expect(browser.headers.get("vary")).toContain("Origin");
    const bot = await api("/v1/config");
    expect(bot.status).toBe(200);
    expect(bot.headers.get("access-control-allow-origin")).toBeNull();
    expect(bot.headers.get("vary")).toContain("Origin");
  });
});
