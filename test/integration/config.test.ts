/**
 * `GET` / `PUT` / `PATCH /v1/config` (docs/api.md#configuration): defaults, strict validation,
 * egress rules, write-only secrets sealed under CONFIG_KEY and kept by name,
 * JSON Merge Patch applied against the stored document.
 */
import { createExecutionContext, env, reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TENANT_RECHECK_MS, type TenantReads } from "../../src/core/objects/tenant-cache";
import { checkConfig } from "../../src/core/config-check/validate";
import worker from "../../src/index";
import { TEST_KEYS } from "../setup/bindings";
import { api, call, configure, json, parallel, toolCalls, toolConfig, toolServer } from "../helpers";

afterEach(() => reset());

const put = (body: unknown) => api("/v1/config", { method: "PUT", body });
const patch = (body: unknown, contentType = "application/merge-patch+json", key?: string) =>
  api("/v1/config", { method: "PATCH", body, key, headers: { "content-type": contentType } });
const shown = async () => json(await api("/v1/config"));

/** Whether the tool server's copy of a job's request is signed (Standard Webhooks) with `secret`. */
async function signedWith(secret: string, jobId: string): Promise<boolean> {
  const [received] = await toolCalls(jobId);
  const h = received!.headers;
  const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    new TextEncoder().encode(`${h["webhook-id"]}.${h["webhook-timestamp"]}.${received!.body}`),
  );
  return h["webhook-signature"] === `v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`;
}

describe("configuration", () => {
  it("starts from the documented defaults", async () => {
    const config = await json(await api("/v1/config"));
    expect(config.tools).toEqual([]);
    expect(config.limits).toMatchObject({
      max_calls: 8,
      max_parallel_subagents: 5,
      max_subagents_per_tree: 20,
      max_depth: 2,
      on_subagent_limit: "reject",
      max_active_jobs_per_chat: 64,
      max_wait_seconds: 90,
      default_timeout_seconds: 300,
      tool_job_timeout_seconds: 600,
      subordinate_job_timeout_seconds: 1800,
      max_job_timeout_seconds: 3600,
      max_result_chars: 16000,
      max_stored_result_bytes: 1048576,
      max_response_bytes: 1048576,
      max_body_bytes: 262144,
      max_job_ids: 64,
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
    for (const url of [
      "http://tools.example/x",
      "https://127.0.0.1/x",
      "https://10.1.2.3/x",
      "https://[::1]/x",
      "https://169.254.169.254/",
    ]) {
      const res = await putStrict({ tools: [{ name: "t", url }] });
      expect(res.status, url).toBe(400);
      expect((await json(res)).error.message).toContain("tools[0].url");
    }
    expect((await putStrict({ tools: [{ name: "t", url: "https://tools.example/x" }] })).status).toBe(200);
  });

  it("refuses a tool whose parameters cannot serve as a JSON Schema", async () => {
    const res = await put({ tools: [{ name: "t", url: "https://t.example", parameters: { $ref: "#/missing" } }] });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain(
      'tools[0].parameters/$ref "#/missing" is not a local reference (#/…) to a part of this schema',
    );
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

  it("is left out of a check that names the current version, and sent once it changes", async () => {
    await configure();
    // The RPC type mapping cannot carry the schema's open JSON fields; the values are plain JSON.
    const tenant = env.TENANT.getByName("tenant/acme") as unknown as TenantReads;
    const first = await tenant.getConfig();
    expect(first.config?.tools.length).toBeGreaterThan(0);
    expect(await tenant.getConfig(first.version)).toEqual({ version: first.version });
    await configure({ tools: [] });
    const changed = await tenant.getConfig(first.version);
    expect(changed.version).toBe(first.version + 1);
    expect(changed.config?.tools).toEqual([]);
  });

  it("written by another isolate, is seen here within 5 s, not on every request", async () => {
    await configure();
    expect((await parallel("cfg-5s", { tool_calls: [call("echo")] })).status).toBe(200);
    // Another isolate's PUT: straight to the TenantDO, so this isolate's copy knows nothing of it.
    const checked = checkConfig({ ...toolConfig(), tools: [] }, true);
    if (!checked.ok) throw new Error(checked.problems.join("; "));
    expect(((await env.TENANT.getByName("tenant/acme").putConfig(checked.config as never)) as { ok: boolean }).ok).toBe(
      true,
    );
    expect((await parallel("cfg-5s", { tool_calls: [call("echo")] })).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + TENANT_RECHECK_MS);
    const res = await parallel("cfg-5s", { tool_calls: [call("echo")] });
    vi.useRealTimers();
    expect(res.body.error.code).toBe("unknown_tool");
  });
});

/** A config request under ALLOW_PRIVATE_EGRESS=false, as a deployed worker runs. */
const strictly = (method: "PUT" | "PATCH", body: unknown) =>
  worker.fetch(
    new Request("https://fanout.test/v1/config", {
      method,
      headers: {
        authorization: `Bearer ${TEST_KEYS.acme}`,
        "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json",
      },
      body: JSON.stringify(body),
    }),
    { ...env, ALLOW_PRIVATE_EGRESS: "false" } as Env,
    createExecutionContext(),
  );

/** docs/api.md#outbound-urls: hosts that are not public, in the spellings the rules used to let through. */
const NOT_PUBLIC = [
  "https://localhost./x",
  "https://localhost.:8443/x",
  "https://foo.localhost./x",
  "https://tools.example./x",
  "https://[fec0::1]/x",
  "https://198.18.0.1/x",
  "https://192.0.0.1/x",
  "https://224.0.0.1/x",
  "https://240.0.0.1/x",
  "https://255.255.255.255/x",
  "https://[ff02::1]/x",
  "https://[2002:7f00:1::]/x",
  "https://[64:ff9b::a9fe:a9fe]/x",
];

/**
 * Each outbound field of a config, set to `url`: its path in the error, and the document (PUT) or patch
 * (PATCH) that sets it.
 */
const FIELDS: [path: string, set: (url: string) => Record<string, unknown>][] = [
  ["tools[0].url", (url) => ({ tools: [{ name: "t", url }] })],
  ["mcp_servers[0].url", (url) => ({ mcp_servers: [{ name: "docs", url }] })],
  ["llm.base_url", (url) => ({ llm: { base_url: url, model: "m" } })],
  ["webhook.url", (url) => ({ webhook: { url } })],
  ["telegram.api_base_url", (url) => ({ telegram: { bot_token: "123:t", api_base_url: url } })],
  [
    "builtins.http_request.allowed_origins[0]",
    (url) => ({ builtins: { http_request: { allowed_origins: [new URL(url).origin] } } }),
  ],
  [
    "webhook.allowed_callback_origins[0]",
    (url) => ({ webhook: { url: "https://bot.example/hook", allowed_callback_origins: [new URL(url).origin] } }),
  ],
];

describe("egress rules at PUT and PATCH (ALLOW_PRIVATE_EGRESS=false)", () => {
  const stored = {
    tools: [{ name: "t", url: "https://tools.example/x" }],
    llm: { base_url: "https://llm.example/v1", model: "m" },
  };

  it.for(NOT_PUBLIC)("PUT refuses %s in every outbound field with 400, nothing stored", async (url) => {
    expect((await strictly("PUT", stored)).status).toBe(200);
    const before = await shown();
    for (const [path, set] of FIELDS) {
      const res = await strictly("PUT", { ...stored, ...set(url) });
      expect(res.status, `${path} = ${url}`).toBe(400);
      const { error } = await json(res);
      expect(error.code).toBe("invalid_config");
      expect(error.message, url).toMatch(
        new RegExp(`${path.replace(/[[\].]/g, "\\$&")} (points at|has a host name ending in a dot)`),
      );
    }
    expect(await shown()).toEqual(before);
  });

  it.for(NOT_PUBLIC)("PATCH refuses %s in every outbound field with 400, nothing stored", async (url) => {
    expect((await strictly("PUT", stored)).status).toBe(200);
    const before = await shown();
    for (const [path, set] of FIELDS) {
      const res = await strictly("PATCH", set(url));
      expect(res.status, `${path} = ${url}`).toBe(400);
      const { error } = await json(res);
      expect(error.code).toBe("invalid_config");
      expect(error.message, url).toContain(path);
    }
    expect(await shown()).toEqual(before);
  });

  it.for([
    "https://8.8.8.8/x",
    "https://192.0.1.1/x",
    "https://198.20.0.1/x",
    "https://[2606:4700::1111]/x",
    "https://[2002:808:808::]/x",
  ])("accepts the public address in %s", async (url) => {
    const res = await strictly("PUT", { tools: [{ name: "t", url }] });
    expect(res.status, url).toBe(200);
    expect((await shown()).tools[0].url).toBe(url);
  });
});

describe("secrets", () => {
  it("are write-only: GET shows *** and the stored form is encrypted", async () => {
    await put(toolConfig({ llm: { base_url: "https://llm.example/v1", model: "m", api_key: "sk-very-secret" } }));
    const shown = await json(await api("/v1/config"));
    expect(shown.tools[0].secret).toBe("***");
    expect(shown.llm.api_key).toBe("***");
    const stored = await runInDurableObject(
      env.TENANT.getByName("tenant/acme"),
      (_i, state) => state.storage.sql.exec("SELECT doc FROM config").toArray()[0]!.doc as string,
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
    expect(await signedWith("whsec_dGVzdC1zZWNyZXQtZm9yLXRvb2xz", body.jobs[0].job_id)).toBe(true);
  });

  it("*** with nothing stored is refused", async () => {
    const res = await put({ tools: [{ name: "t", url: "https://t.example", secret: "***" }] });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain('tools.t.secret is "***" but no secret is stored for it');
  });

  it("generates omitted signing secrets and shows them once in the PUT answer, keyed by name", async () => {
    const res = await json(
      await put({
        tools: [
          { name: "given", url: "https://t.example", secret: "whsec_Z2l2ZW4=" },
          { name: "t", url: "https://t.example" },
        ],
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

const SECRET_A = "whsec_c2VjcmV0LWEtZm9yLWVjaG8tdG9vbA==";
const SECRET_B = "whsec_c2VjcmV0LWItZm9yLXRleHQtdG9vbA==";
const mcp = (name: string, token: string) => ({
  name,
  url: `${toolServer()}/mcp/patch-${name}`,
  headers: { Authorization: `Bearer ${token}` },
});
const tool = (name: string, path: string, more: Record<string, unknown> = {}) => ({
  name,
  url: `${toolServer()}${path}`,
  read_only: true,
  ...more,
});
/** Two tools and two MCP servers with secrets of their own, an LLM and some limits. */
const full = () =>
  configure({
    tools: [tool("echo", "/echo", { secret: SECRET_A }), tool("text", "/text", { secret: SECRET_B })],
    mcp_servers: [mcp("docs", "docs-token"), mcp("wiki", "wiki-token")],
    llm: { base_url: "https://llm.example/v1", model: "m", api_key: "sk-kept" },
    limits: { max_calls: 4 },
  });
/** The provider as agent loops get it, with its key decrypted. */
const llmTarget = () => env.TENANT.getByName("tenant/acme").llmTarget();
const mcpAuth = async (name: string) =>
  (
    (await (await fetch(`${toolServer()}/__mcp/calls?instance=patch-${name}`)).json()) as { authorization?: string }[]
  ).map((c) => c.authorization);

describe("PATCH /v1/config", () => {
  it("a webhook-only patch keeps llm, tools and mcp_servers, and answers the document as GET shows it", async () => {
    await full();
    const before = await shown();
    const hook = `${toolServer()}/status/204`;
    const res = await patch({ webhook: { url: hook } });
    expect(res.status).toBe(200);
    const { generated_secrets, ...answered } = await json(res);
    expect(answered).toEqual(await shown());
    expect(answered).toEqual({
      ...before,
      webhook: { url: hook, secret: "***", allowed_callback_origins: [], include_child_chats: false },
    });
    expect(Object.keys(generated_secrets)).toEqual(["webhook.secret"]);
    expect(await llmTarget()).toMatchObject({ api_key: "sk-kept" });
    const { body } = await parallel("p-keep", { tool_calls: [call("echo")] });
    expect(await signedWith(SECRET_A, body.jobs[0].job_id)).toBe(true);
  });

  it("null removes a key, which then takes its default; a nested object merges key by key", async () => {
    await full();
    await patch({ webhook: { url: "https://bot.example/fanout" } });
    const res = await json(
      await patch({ llm: { model: "m2" }, webhook: null, limits: { max_calls: null, max_depth: 1 } }),
    );
    expect(res.llm).toEqual({ base_url: "https://llm.example/v1", model: "m2", api_key: "***" });
    expect(res.webhook).toBeNull();
    expect(res.limits).toMatchObject({ max_calls: 8, max_depth: 1 });
    expect(await llmTarget()).toMatchObject({ model: "m2", api_key: "sk-kept" });
  });

  it("removing the webhook's secret with null rotates it: a new one is generated and shown once", async () => {
    await full();
    await patch({ webhook: { url: "https://bot.example/fanout", secret: "whsec_b2xkLXNlY3JldA==" } });
    const res = await json(await patch({ webhook: { secret: null } }));
    expect(res.webhook).toMatchObject({ url: "https://bot.example/fanout", secret: "***" });
    expect(res.generated_secrets["webhook.secret"]).toMatch(/^whsec_/);
    expect((await env.TENANT.getByName("tenant/acme").webhookTarget())!.secret).toBe(
      res.generated_secrets["webhook.secret"],
    );
  });

  it("replaces arrays whole", async () => {
    await full();
    const res = await json(await patch({ tools: [tool("echo", "/echo")] }));
    expect(res.tools.map((t: { name: string }) => t.name)).toEqual(["echo"]);
    expect(res.mcp_servers).toHaveLength(2);
    expect((await parallel("p-arr", { tool_calls: [call("text")] })).body.error.code).toBe("unknown_tool");
  });

  it('keeps secrets that are "***" or omitted, matched by name when the arrays are reordered', async () => {
    await full();
    const res = await json(
      await patch({
        tools: [tool("text", "/text"), tool("echo", "/echo", { secret: "***" })],
        mcp_servers: [
          { ...mcp("wiki", ""), headers: undefined },
          { ...mcp("docs", ""), headers: { Authorization: "***" } },
        ],
      }),
    );
    expect(res.generated_secrets).toEqual({});
    expect(res.mcp_servers.map((s: { name: string; headers: object }) => [s.name, s.headers])).toEqual([
      ["wiki", { Authorization: "***" }],
      ["docs", { Authorization: "***" }],
    ]);
    const { body } = await parallel("p-order", {
      tool_calls: [
        call("echo"),
        call("text"),
        call("docs__search", { query: "d" }),
        call("wiki__search", { query: "w" }),
      ],
    });
    expect(body.status).toBe("success");
    expect(await signedWith(SECRET_A, body.jobs[0].job_id)).toBe(true);
    expect(await signedWith(SECRET_B, body.jobs[1].job_id)).toBe(true);
    expect(await mcpAuth("docs")).toEqual(["Bearer docs-token"]);
    expect(await mcpAuth("wiki")).toEqual(["Bearer wiki-token"]);
  });

  it("a new tool without a secret gets one, listed under tools.<name>.secret, that signs its calls", async () => {
    await full();
    const res = await json(await patch({ tools: [tool("echo", "/echo"), tool("fresh", "/echo")] }));
    expect(Object.keys(res.generated_secrets)).toEqual(["tools.fresh.secret"]);
    const { body } = await parallel("p-new", { tool_calls: [call("fresh"), call("echo")] });
    expect(await signedWith(res.generated_secrets["tools.fresh.secret"], body.jobs[0].job_id)).toBe(true);
    expect(await signedWith(SECRET_A, body.jobs[1].job_id)).toBe(true);
  });

  it("refuses a merged document a PUT would refuse, and changes nothing", async () => {
    await full();
    const before = await shown();
    for (const [bad, says] of [
      [{ webhook: { include_child_chats: true } }, "webhook.url"],
      [{ tools: [{ name: "x", url: "not a url" }] }, "tools.0.url"],
      [{ tools: [tool("echo", "/echo"), tool("echo", "/text")] }, "'echo' is defined twice"],
      [{ tools: [tool("new", "/echo", { secret: "***" })] }, 'tools.new.secret is "***" but no secret is stored'],
      [
        { limits: { max_job_timeout_seconds: 10 }, tools: [tool("echo", "/echo", { timeout_seconds: 60 })] },
        "timeout_seconds must be <=",
      ],
    ] as const) {
      const res = await patch(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      const { error } = await json(res);
      expect(error.code).toBe("invalid_config");
      expect(error.message).toContain(says);
    }
    expect(await shown()).toEqual(before);
  });

  it("refuses unknown keys at any level, even with a null value", async () => {
    await full();
    const before = await shown();
    for (const bad of [
      { surprise: 1 },
      { limits: { max_cals: null } },
      { llm: { temperature: 1 } },
      { agents: { a: { sytem_prompt: "x" } } },
    ]) {
      const res = await patch(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect((await json(res)).error).toMatchObject({
        code: "invalid_config",
        message: expect.stringContaining("nrecognized key"),
      });
    }
    const proto = await api("/v1/config", {
      method: "PATCH",
      rawBody: '{"agents":{"__proto__":{"max_steps":1}}}',
      headers: { "content-type": "application/json" },
    });
    expect(proto.status).toBe(400);
    expect((await json(proto)).error.message).toContain('agents.__proto__: "__proto__" is not a configuration key');
    expect(await patch([{ op: "add" }], "application/json").then((r) => r.status)).toBe(400);
    expect(await shown()).toEqual(before);
  });

  it("takes application/merge-patch+json or application/json and refuses any other type with 415", async () => {
    expect((await patch({ limits: { max_calls: 3 } }, "application/merge-patch+json; charset=utf-8")).status).toBe(200);
    expect((await patch({ limits: { max_calls: 2 } }, "application/json")).status).toBe(200);
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/json-patch+json"]) {
      const res = await patch({ limits: { max_calls: 1 } }, type);
      expect(res.status, type).toBe(415);
      expect((await json(res)).error).toEqual({
        code: "unsupported_media_type",
        message: `PATCH /v1/config takes a JSON Merge Patch: send it with Content-Type: application/merge-patch+json (or application/json), not ${type}.`,
      });
    }
    expect((await shown()).limits.max_calls).toBe(2);
  });

  it("concurrent patches all land: each is merged into the document the one before stored", async () => {
    await full();
    const names = Array.from({ length: 12 }, (_, i) => `agent${i}`);
    // Each also seals a new key, so each write awaits the cipher between reading and storing.
    const answers = await Promise.all(
      names.map((n, i) => patch({ agents: { [n]: { max_steps: i + 1 } }, llm: { api_key: `sk-${i}` } })),
    );
    expect(answers.map((r) => r.status)).toEqual(names.map(() => 200));
    expect(Object.keys((await shown()).agents).sort()).toEqual([...names].sort());
  });

  it("changes only the caller's tenant, and needs its key", async () => {
    await full();
    expect((await patch({ limits: { max_calls: 1 } }, undefined, TEST_KEYS.globex)).status).toBe(200);
    expect((await shown()).limits.max_calls).toBe(4);
    expect((await patch({ limits: { max_calls: 1 } }, undefined, "not-a-key")).status).toBe(401);
  });

  it("is allowed for browsers from CORS_ORIGINS", async () => {
    const res = await api("/v1/config", {
      method: "OPTIONS",
      key: null,
      headers: { origin: "https://dash.example", "access-control-request-method": "PATCH" },
    });
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
  });

  it("is described in /openapi.json: the patch under both media types, generated_secrets in the answer", async () => {
    const doc = await json(await api("/openapi.json", { key: null }));
    const op = doc.paths["/v1/config"].patch;
    expect(Object.keys(op.requestBody.content)).toEqual(["application/merge-patch+json", "application/json"]);
    expect(op.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ConfigPatch" });
    expect(doc.components.schemas.ConfigPatch.properties.llm.anyOf).toContainEqual({ type: "null" });
    expect(op.responses["200"].content["application/json"].schema.properties).toHaveProperty("generated_secrets");
    expect(doc.paths["/v1/config"].put.responses["200"].content["application/json"].schema.properties).toHaveProperty(
      "generated_secrets",
    );
  });
});
