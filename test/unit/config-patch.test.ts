import { apply } from "tiny-merge-patch";
import { describe, expect, it } from "vitest";
import { applyConfigPatch, configPatchSchema, prototypeKeyPath } from "../../src/core/config/patch";
import { configSchema, type TenantConfig } from "../../src/core/config/schema";
import { checkConfig } from "../../src/core/config-check/validate";

/** A stored document as `GET` shows it: every secret "***". */
const shown = (): TenantConfig =>
  configSchema.parse({
    tools: [
      { name: "search", url: "https://tools.example/search", secret: "***", read_only: true },
      { name: "fetch", url: "https://tools.example/fetch", secret: "***" },
    ],
    mcp_servers: [{ name: "docs", url: "https://mcp.example/mcp", headers: { Authorization: "***" } }],
    agents: { boss: { description: "boss", max_steps: 5 } },
    llm: { base_url: "https://llm.example/v1", model: "m", api_key: "***" },
    limits: { max_calls: 4 },
  });

const merged = (patch: Record<string, unknown>, from = shown()) => {
  const checked = checkConfig(applyConfigPatch(from, patch), true);
  if (!checked.ok) throw new Error(checked.problems.join("; "));
  return checked.config;
};

describe("RFC 7396 merge (tiny-merge-patch), the cases of the RFC's appendix A", () => {
  it.each([
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [
      ["a", "b"],
      ["c", "d"],
      ["c", "d"],
    ],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])("%j patched with %j is %j", (target, patch, result) => {
    const before = JSON.stringify([target, patch]);
    expect(apply(target, patch)).toEqual(result);
    expect(JSON.stringify([target, patch])).toBe(before); // neither input is changed
  });
});

describe("applyConfigPatch", () => {
  it("changes only the keys the patch names", () => {
    const next = merged({ webhook: { url: "https://bot.example/fanout" } });
    const before = shown();
    expect(next.webhook).toEqual({
      url: "https://bot.example/fanout",
      allowed_callback_origins: [],
      include_child_chats: false,
    });
    expect(next.llm).toEqual(before.llm);
    expect(next.tools).toEqual(before.tools);
    expect(next.mcp_servers).toEqual(before.mcp_servers);
    expect(next.agents).toEqual(before.agents);
    expect(next.limits).toEqual(before.limits);
  });

  it("merges nested objects key by key: other fields and the stored secret stay", () => {
    const next = merged({ llm: { model: "m2" }, limits: { max_depth: 1 } });
    expect(next.llm).toEqual({ base_url: "https://llm.example/v1", model: "m2", api_key: "***" });
    expect(next.limits).toMatchObject({ max_calls: 4, max_depth: 1 });
  });

  it("null removes a key, which then takes its default", () => {
    const next = merged({ llm: null, limits: { max_calls: null }, agents: { boss: null }, tools: null });
    expect(next.llm).toBeNull();
    expect(next.limits.max_calls).toBe(8);
    expect(next.agents).toEqual({});
    expect(next.tools).toEqual([]);
    expect(merged({ agents: { boss: { max_steps: null } } }).agents.boss!.max_steps).toBe(25);
  });

  it("replaces arrays whole: entries left out are gone, the others take their defaults", () => {
    const next = merged({ tools: [{ name: "search", url: "https://tools.example/v2" }] });
    expect(next.tools).toEqual([
      {
        name: "search",
        url: "https://tools.example/v2",
        description: "",
        parameters: { type: "object" },
        read_only: false,
        secret: "***",
      },
    ]);
  });

  it("keeps a replaced tool's omitted secret by name, also when the array is reordered; a new tool has none", () => {
    const next = merged({
      tools: [
        { name: "new", url: "https://tools.example/new" },
        { name: "fetch", url: "https://tools.example/fetch" },
        { name: "search", url: "https://tools.example/search", secret: "whsec_c2VudA==" },
      ],
    });
    expect(next.tools.map((t) => [t.name, t.secret])).toEqual([
      ["new", undefined],
      ["fetch", "***"],
      ["search", "whsec_c2VudA=="],
    ]);
  });

  it("keeps a replaced MCP server's headers when it leaves them out; listed headers are exactly those", () => {
    expect(merged({ mcp_servers: [{ name: "docs", url: "https://mcp.example/v2" }] }).mcp_servers[0]!.headers).toEqual({
      Authorization: "***",
    });
    expect(
      merged({ mcp_servers: [{ name: "docs", url: "https://mcp.example/mcp", headers: { "X-Key": "k" } }] })
        .mcp_servers[0]!.headers,
    ).toEqual({
      "X-Key": "k",
    });
    expect(
      merged({ mcp_servers: [{ name: "other", url: "https://mcp.example/mcp" }] }).mcp_servers[0]!.headers,
    ).toEqual({});
  });

  it("changes neither the stored document nor the patch", () => {
    const from = shown();
    const patch = { tools: [{ name: "fetch", url: "https://tools.example/fetch" }], llm: { model: "x" } };
    const before = JSON.stringify([from, patch]);
    applyConfigPatch(from, patch);
    expect(JSON.stringify([from, patch])).toBe(before);
  });

  it("leaves the whole document's rules to the check after the merge", () => {
    const checked = checkConfig(applyConfigPatch(configSchema.parse({}), { llm: { model: "m" } }), true);
    expect(checked).toMatchObject({ ok: false, problems: [expect.stringContaining("llm.base_url")] });
  });
});

describe("configPatchSchema", () => {
  const ok = (patch: unknown) => configPatchSchema.safeParse(patch).success;

  it("takes null for any key of an object, and for a record's entries", () => {
    expect(
      ok({ llm: null, webhook: null, limits: { max_calls: null, max_tokens_per_job: null }, agents: { boss: null } }),
    ).toBe(true);
    expect(ok({ llm: { api_key: null }, builtins: { http_request: { allowed_origins: null } } })).toBe(true);
    expect(ok({})).toBe(true);
  });

  it("refuses unknown keys at every level, even with a null value", () => {
    expect(ok({ surprise: 1 })).toBe(false);
    expect(ok({ limits: { max_cals: null } })).toBe(false);
    expect(ok({ llm: { model: "m", temperature: 1 } })).toBe(false);
    expect(ok({ agents: { boss: { sytem_prompt: "…" } } })).toBe(false);
    expect(ok({ tools: [{ name: "t", url: "https://t.example", extra: 1 }] })).toBe(false);
  });

  it("checks values as a PUT would: types, bounds, names", () => {
    expect(ok({ limits: { max_calls: 33 } })).toBe(false);
    expect(ok({ limits: { max_calls: "8" } })).toBe(false);
    expect(ok({ agents: { "9lives": {} } })).toBe(false);
    expect(ok({ tools: [{ name: "wait", url: "https://t.example" }] })).toBe(false);
    expect(ok({ tools: [null] })).toBe(false); // inside an array null is a value, not a removal
  });

  it("refuses a patch that is not an object", () => {
    for (const patch of [null, [], "x", 1]) expect(ok(patch)).toBe(false);
  });
});

describe("prototypeKeyPath", () => {
  it("finds a __proto__ key wherever JSON.parse left one", () => {
    expect(prototypeKeyPath(JSON.parse('{"agents":{"__proto__":{"max_steps":1}}}'))).toBe("agents.__proto__");
    expect(prototypeKeyPath(JSON.parse('{"tools":[{"parameters":{"__proto__":{}}}]}'))).toBe(
      "tools.0.parameters.__proto__",
    );
    expect(prototypeKeyPath({ agents: { boss: {} } })).toBeUndefined();
  });
});
