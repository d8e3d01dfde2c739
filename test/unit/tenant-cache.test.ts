import { afterEach, describe, expect, it } from "vitest";
import type { TenantConfig } from "../../src/core/config/schema";
import {
  CONFIG_DOCUMENT_MAX_AGE_MS,
  configCheck,
  forgetTenants,
  MAX_KEPT_CHARS,
  rememberConfig,
  runTargetsOf,
  TENANT_RECHECK_MS,
  tenantConfigOf,
  vouchFor,
  type TenantReads,
} from "../../src/core/objects/tenant-cache";
import type { RunTarget } from "../../src/core/tools/executors";

afterEach(() => forgetTenants());

/** A TenantDO stand-in that counts what it is asked; `version` and `url` change as a write would. */
function tenantDo() {
  const state = {
    version: 1,
    url: "https://tools.example/a",
    configReads: 0,
    documents: 0,
    targetReads: [] as string[][],
  };
  const reads: TenantReads = {
    getConfig: async (known) => {
      state.configReads++;
      if (known === state.version) return { version: state.version };
      state.documents++;
      return { config: { name: `v${state.version}` } as unknown as TenantConfig, version: state.version };
    },
    runTargets: async (names) => {
      state.targetReads.push(names);
      const targets: Record<string, RunTarget> = {};
      for (const n of names)
        targets[n] = { kind: "http_tool", url: `${state.url}/${n}`, secret: "s", max_response_bytes: 1, secrets: [] };
      return { version: state.version, targets };
    },
  };
  return { state, reads: () => reads };
}

const url = (t: RunTarget | undefined) => (t?.kind === "http_tool" ? t.url : undefined);

describe("the isolate's copy of a tenant", () => {
  it("asks the TenantDO for the config at most once every 5 s", async () => {
    const t = tenantDo();
    expect(await tenantConfigOf("acme", t.reads, 0)).toEqual({ name: "v1" });
    t.state.version = 2;
    expect(await tenantConfigOf("acme", t.reads, TENANT_RECHECK_MS - 1)).toEqual({ name: "v1" });
    expect(t.state.configReads).toBe(1);
    expect(await tenantConfigOf("acme", t.reads, TENANT_RECHECK_MS)).toEqual({ name: "v2" });
    expect(t.state.configReads).toBe(2);
  });

  it("names the version it keeps when it checks, and is sent the document only when that changed", async () => {
    const t = tenantDo();
    await tenantConfigOf("acme", t.reads, 0);
    expect(await tenantConfigOf("acme", t.reads, TENANT_RECHECK_MS)).toEqual({ name: "v1" });
    expect([t.state.configReads, t.state.documents]).toEqual([2, 1]);
    // The check counts as one: the next is 5 s after it, not after the first read.
    expect(configCheck("acme")).toEqual({ version: 1, checkedAt: TENANT_RECHECK_MS });
    await tenantConfigOf("acme", t.reads, 2 * TENANT_RECHECK_MS - 1);
    expect(t.state.configReads).toBe(2);
    t.state.version = 2;
    expect(await tenantConfigOf("acme", t.reads, 2 * TENANT_RECHECK_MS)).toEqual({ name: "v2" });
    expect([t.state.configReads, t.state.documents]).toEqual([3, 2]);
  });

  it("asks for the document again once its copy is a minute old, even at the same version", async () => {
    const t = tenantDo();
    await tenantConfigOf("acme", t.reads, 0);
    for (let at = TENANT_RECHECK_MS; at < CONFIG_DOCUMENT_MAX_AGE_MS; at += TENANT_RECHECK_MS)
      await tenantConfigOf("acme", t.reads, at);
    expect(t.state.documents).toBe(1);
    await tenantConfigOf("acme", t.reads, CONFIG_DOCUMENT_MAX_AGE_MS);
    expect(t.state.documents).toBe(2);
  });

  it("keeps a write it answered while a read of an older version was on its way", async () => {
    const t = tenantDo();
    const reading = tenantConfigOf("acme", t.reads, 0); // answers version 1 with its document
    rememberConfig("acme", { name: "v2" } as unknown as TenantConfig, 2, 0);
    expect(await reading).toEqual({ name: "v2" });
    expect(configCheck("acme")?.version).toBe(2);
  });

  it("keeps a write it answered while a check was on its way", async () => {
    const t = tenantDo();
    await tenantConfigOf("acme", t.reads, 0);
    const checking = tenantConfigOf("acme", t.reads, TENANT_RECHECK_MS); // answers "unchanged, version 1"
    rememberConfig("acme", { name: "v2" } as unknown as TenantConfig, 2, TENANT_RECHECK_MS);
    expect(await checking).toEqual({ name: "v1" }); // that request began before the write
    expect(await tenantConfigOf("acme", t.reads, TENANT_RECHECK_MS + 1)).toEqual({ name: "v2" });
  });

  it("keeps tenants apart", async () => {
    const a = tenantDo();
    const b = tenantDo();
    b.state.version = 7;
    await tenantConfigOf("a", a.reads, 0);
    expect(await tenantConfigOf("b", b.reads, 0)).toEqual({ name: "v7" });
    expect(await runTargetsOf("b", ["x"], b.reads, 0)).toBeDefined();
    expect(a.state.targetReads).toEqual([]);
  });

  it("asks for targets only for a tool it lacks, or once 5 s have passed", async () => {
    const t = tenantDo();
    await runTargetsOf("acme", ["x", "y"], t.reads, 0);
    await runTargetsOf("acme", ["y"], t.reads, 100);
    await runTargetsOf("acme", ["z"], t.reads, 200);
    expect(t.state.targetReads).toEqual([["x", "y"], ["z"]]);
    t.state.url = "https://tools.example/moved";
    expect(url((await runTargetsOf("acme", ["x"], t.reads, 4_000)).x)).toBe("https://tools.example/a/x");
    expect(url((await runTargetsOf("acme", ["x"], t.reads, TENANT_RECHECK_MS + 1)).x)).toBe(
      "https://tools.example/moved/x",
    );
  });

  it("drops every target kept under an older version when a newer one is read", async () => {
    const t = tenantDo();
    await runTargetsOf("acme", ["x", "y"], t.reads, 0);
    t.state.version = 2;
    t.state.url = "https://tools.example/v2";
    await runTargetsOf("acme", ["x"], t.reads, TENANT_RECHECK_MS + 1);
    // `y` was opened under version 1: it is asked for again rather than served stale.
    expect(url((await runTargetsOf("acme", ["y"], t.reads, TENANT_RECHECK_MS + 2)).y)).toBe(
      "https://tools.example/v2/y",
    );
  });

  it("sees a write it answered at once (read-your-writes), targets included", async () => {
    const t = tenantDo();
    await tenantConfigOf("acme", t.reads, 0);
    await runTargetsOf("acme", ["x"], t.reads, 0);
    t.state.version = 2;
    t.state.url = "https://tools.example/new";
    rememberConfig("acme", { name: "v2" } as unknown as TenantConfig, 2, 10);
    expect(await tenantConfigOf("acme", t.reads, 20)).toEqual({ name: "v2" });
    expect(url((await runTargetsOf("acme", ["x"], t.reads, 20)).x)).toBe("https://tools.example/new/x");
    expect(t.state.configReads).toBe(1);
  });

  it("keeps a round of more tenants than a count would, so none of them misses in turn", async () => {
    const t = tenantDo();
    const tenants = Array.from({ length: 2_500 }, (_, i) => `t${i}`);
    for (const tenant of tenants) {
      await tenantConfigOf(tenant, t.reads, 0);
      await runTargetsOf(tenant, ["x"], t.reads, 0);
    }
    expect(t.state.documents).toBe(2_500);
    // A second round, 6 s on: each tenant is checked by version only, and its targets are still there.
    for (const tenant of tenants) {
      vouchFor(tenant, { version: 1, checkedAt: 6_000 }, 6_000);
      await tenantConfigOf(tenant, t.reads, 6_000);
      await runTargetsOf(tenant, ["x"], t.reads, 6_000);
    }
    expect(t.state.documents).toBe(2_500);
    expect(t.state.targetReads).toHaveLength(2_500);
  });

  it("keeps documents up to a budget of their size, forgetting the least recently stored", async () => {
    const big = (name: string) => ({ name, pad: "x".repeat(MAX_KEPT_CHARS / 2 - 100) }) as unknown as TenantConfig;
    rememberConfig("a", big("a"), 1, 0);
    rememberConfig("b", big("b"), 1, 0);
    expect(configCheck("a")).toBeDefined();
    rememberConfig("c", big("c"), 1, 0);
    expect(configCheck("a")).toBeUndefined();
    expect(configCheck("b")).toBeDefined();
    expect(configCheck("c")).toBeDefined();
    // Stored again, a tenant weighs what it weighs now, not twice.
    rememberConfig("b", { name: "b" } as unknown as TenantConfig, 2, 1);
    rememberConfig("d", big("d"), 1, 1);
    expect(configCheck("b")).toBeDefined();
    expect(configCheck("c")).toBeDefined();
  });

  it("keeps targets up to the same budget, counting each tool a tenant's entry gains", async () => {
    const t = tenantDo();
    t.state.url = `https://tools.example/${"p".repeat(MAX_KEPT_CHARS / 4 - 1_000)}`;
    await runTargetsOf("a", ["x"], t.reads, 0);
    await runTargetsOf("a", ["y"], t.reads, 0); // a's entry now weighs two targets: half the budget
    await runTargetsOf("b", ["x"], t.reads, 0);
    expect(t.state.targetReads).toHaveLength(3);
    await runTargetsOf("c", ["x", "y"], t.reads, 1); // past the budget: the oldest stored, a, goes
    await runTargetsOf("b", ["x"], t.reads, 2);
    expect(t.state.targetReads).toHaveLength(4);
    await runTargetsOf("a", ["x", "y"], t.reads, 2);
    expect(t.state.targetReads).toHaveLength(5);
  });
});

describe("a check made by another isolate (the worker's, with a batch)", () => {
  it("keeps what this isolate holds under the same version fresh until 5 s after that check", async () => {
    const t = tenantDo();
    await tenantConfigOf("acme", t.reads, 0);
    await runTargetsOf("acme", ["x"], t.reads, 0);
    vouchFor("acme", { version: 1, checkedAt: 4_000 }, 6_000);
    await tenantConfigOf("acme", t.reads, 8_000);
    await runTargetsOf("acme", ["x"], t.reads, 8_000);
    expect(t.state.configReads).toBe(1);
    expect(t.state.targetReads).toEqual([["x"]]);
    // 5 s after the vouched check, this isolate asks again.
    await runTargetsOf("acme", ["x"], t.reads, 4_000 + TENANT_RECHECK_MS);
    expect(t.state.targetReads).toEqual([["x"], ["x"]]);
  });

  it("vouches for nothing kept under another version, nor past this isolate's clock", async () => {
    const t = tenantDo();
    await runTargetsOf("acme", ["x"], t.reads, 0);
    vouchFor("acme", { version: 2, checkedAt: 4_000 }, 6_000);
    await runTargetsOf("acme", ["x"], t.reads, 6_000);
    expect(t.state.targetReads).toHaveLength(2);
    // A stamp ahead of this clock counts as the time it arrived.
    vouchFor("acme", { version: 1, checkedAt: 60_000 }, 7_000);
    await runTargetsOf("acme", ["x"], t.reads, 7_000 + TENANT_RECHECK_MS);
    expect(t.state.targetReads).toHaveLength(3);
  });

  it("hands on this isolate's latest check", async () => {
    const t = tenantDo();
    expect(configCheck("acme")).toBeUndefined();
    await tenantConfigOf("acme", t.reads, 1_234);
    expect(configCheck("acme")).toEqual({ version: 1, checkedAt: 1_234 });
  });
});
