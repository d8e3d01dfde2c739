/**
 * `GET` / `PUT /v1/config` (SPEC §2.1): defaults, strict validation, egress
 * rules, write-only secrets sealed under CONFIG_KEY.
 */
import { createExecutionContext, env, reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { TEST_KEYS } from "../setup/bindings";
import { api, call, configure, json, parallel, toolCalls, toolConfig } from "../helpers";

afterEach(() => reset());

const put = (body: unknown) => api("/v1/config", { method: "PUT", body });

describe("configuration", () => {
  it("starts from the documented defaults", async () => {
    const config = await json(await api("/v1/config"));
    expect(config.tools).toEqual([]);
    expect(config.limits).toMatchObject({
      max_calls: 8, max_parallel_subagents: 5, max_subagents_per_tree: 20, max_depth: 2, on_subagent_limit: "reject",
      max_active_jobs_per_chat: 64, max_wait_seconds: 90, default_timeout_seconds: 300, tool_job_timeout_seconds: 600,
      subordinate_job_timeout_seconds: 1800, max_job_timeout_seconds: 3600, max_result_chars: 16000,
      max_stored_result_bytes: 1048576, max_response_bytes: 1048576, max_body_bytes: 262144, max_job_ids: 64,
      retention_seconds: 604800,
    });
  });

  it("refuses unknown keys, reserved names and out-of-range limits, and keeps the old document", async () => {
    await configure();
    for (const bad of [
      { surprise: 1 },
      { tools: [{ name: "wait", url: "https://t.example" }] },
      { tools: [{ name: "9lives", url: "https://t.example" }] },
      { limits: { max_calls: 33 } },
      { limits: { max_wait_seconds: 96 } },
      { limits: { retention_seconds: 59 } },
      { agents: { a: { permission: { task: { "0": "allow" } } } } },
    ]) {
      const res = await put(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect((await json(res)).error.code).toBe("invalid_config");
    }
    expect((await json(await api("/v1/config"))).tools.length).toBeGreaterThan(0);
  });

  it("refuses http: and private addresses unless ALLOW_PRIVATE_EGRESS is true", async () => {
    const strict = { ...env, ALLOW_PRIVATE_EGRESS: "false" } as Env;
    const putStrict = (body: unknown) =>
      worker.fetch(
        new Request("https://fanout.test/v1/config", {
          method: "PUT",
          headers: { authorization: `Bearer ${TEST_KEYS.acme}` },
          body: JSON.stringify(body),
        }),
        strict,
        createExecutionContext(),
      );
    for (const url of ["http://tools.example/x", "https://127.0.0.1/x", "https://10.1.2.3/x", "https://[::1]/x", "https://169.254.169.254/"]) {
      const res = await putStrict({ tools: [{ name: "t", url }] });
      expect(res.status, url).toBe(400);
      expect((await json(res)).error.message).toContain("tools[0].url");
    }
    expect((await putStrict({ tools: [{ name: "t", url: "https://tools.example/x" }] })).status).toBe(200);
  });

  it("refuses a tool whose parameters cannot serve as a JSON Schema", async () => {
    const res = await put({ tools: [{ name: "t", url: "https://t.example", parameters: { $ref: "#/missing" } }] });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain("tools[0].parameters is not a usable JSON Schema");
  });

  it("refuses http_request origins that break the egress rules", async () => {
    const strict = { ...env, ALLOW_PRIVATE_EGRESS: "false" } as Env;
    const res = await worker.fetch(
      new Request("https://fanout.test/v1/config", {
        method: "PUT",
        headers: { authorization: `Bearer ${TEST_KEYS.acme}` },
        body: JSON.stringify({ builtins: { http_request: { allowed_origins: ["http://192.168.1.1"] } } }),
      }),
      strict,
      createExecutionContext(),
    );
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain("builtins.http_request.allowed_origins[0]");
  });

  it("applies to requests that start after the PUT answered", async () => {
    await configure();
    expect((await parallel("cfg", { tool_calls: [call("echo")] })).status).toBe(200);
    await configure({ tools: [] });
    const res = await parallel("cfg", { tool_calls: [call("echo")] });
    expect(res.body.error.code).toBe("unknown_tool");
  });
});

describe("secrets", () => {
  it("are write-only: GET shows *** and the stored form is encrypted", async () => {
    await put(toolConfig({ llm: { base_url: "https://llm.example/v1", model: "m", api_key: "sk-very-secret" } }));
    const shown = await json(await api("/v1/config"));
    expect(shown.tools[0].secret).toBe("***");
    expect(shown.llm.api_key).toBe("***");
    const stored = await runInDurableObject(env.TENANT.getByName("tenant/acme"), (_i, state) =>
      state.storage.sql.exec("SELECT doc FROM config").toArray()[0]!.doc as string,
    );
    expect(stored).not.toContain("sk-very-secret");
    expect(stored).not.toContain("dGVzdC1zZWNyZXQtZm9yLXRvb2xz");
    expect(stored).toContain("enc:v1:");
  });

  it("a PUT that sends *** keeps the stored secret, which still signs tool calls", async () => {
    await configure();
    const shown = await json(await api("/v1/config"));
    expect((await put({ ...shown })).status).toBe(200); // every secret "***"
    const { body } = await parallel("sec", { tool_calls: [call("echo")] });
    const [received] = await toolCalls(body.jobs[0].job_id);
    const h = received!.headers;
    const raw = Uint8Array.from(atob("dGVzdC1zZWNyZXQtZm9yLXRvb2xz"), (c) => c.charCodeAt(0));
    const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${h["webhook-id"]}.${h["webhook-timestamp"]}.${received!.body}`));
    expect(h["webhook-signature"]).toBe(`v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`);
  });

  it("*** with nothing stored is refused", async () => {
    const res = await put({ tools: [{ name: "t", url: "https://t.example", secret: "***" }] });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain('tools.t.secret is "***" but no secret is stored for it');
  });

  it("generates omitted signing secrets and shows them once in the PUT answer, keyed by name", async () => {
    const res = await json(
      await put({
        tools: [{ name: "given", url: "https://t.example", secret: "whsec_Z2l2ZW4=" }, { name: "t", url: "https://t.example" }],
        webhook: { url: "https://bot.example/fanout" },
      }),
    );
    expect(Object.keys(res.generated_secrets).sort()).toEqual(["tools.t.secret", "webhook.secret"]);
    expect(res.generated_secrets["tools.t.secret"]).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(res.tools[1].secret).toBe("***");
    const again = await json(await api("/v1/config"));
    expect(again.generated_secrets).toBeUndefined();
  });
});
