import { describe, expect, it, vi } from "vitest";
import { keyForToken, parseApiKeys, type KeyEntry } from "../../src/edge/auth/api-keys";
import { sha256 } from "../../src/core/util/digest";

async function entries(raw: string): Promise<KeyEntry[]> {
  const table = await parseApiKeys(raw);
  if (!table.ok) throw new Error(`expected API_KEYS to parse: ${table.reason}`);
  return table.entries;
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

describe("parseApiKeys", () => {
  it("reads a single tenant:key pair", async () => {
    const list = await entries("acme:secret-1");
    expect(list).toHaveLength(1);
    expect(list[0]?.tenant).toBe("acme");
  });

  it("stores the SHA-256 digest of the key, not the key", async () => {
    const list = await entries("acme:secret-1");
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("secret-1")));
    expect(hex(list[0]!.digest)).toBe(hex(digest));
    expect(JSON.stringify(list)).not.toContain("secret-1");
  });

  it("trims spaces around pairs, tenants and keys", async () => {
    const list = await entries("  acme : k1 ,  globex:k2  ");
    expect((await keyForToken(list, "k1"))?.tenant).toBe("acme");
    expect((await keyForToken(list, "k2"))?.tenant).toBe("globex");
    expect((await keyForToken(list, " k1"))?.tenant).toBeUndefined();
  });

  it("lets one tenant have several keys for rotation", async () => {
    const list = await entries("acme:old-key,acme:new-key,globex:g");
    expect((await keyForToken(list, "old-key"))?.tenant).toBe("acme");
    expect((await keyForToken(list, "new-key"))?.tenant).toBe("acme");
    expect((await keyForToken(list, "g"))?.tenant).toBe("globex");
  });

  it("splits a pair at its first colon so keys may contain colons", async () => {
    const list = await entries("acme:key:with:colons");
    expect((await keyForToken(list, "key:with:colons"))?.tenant).toBe("acme");
  });

  it("accepts tenant ids of the allowed pattern up to 32 characters", async () => {
    const longest = `a${"b".repeat(31)}`;
    const list = await entries(`0tenant_x-y:k1,${longest}:k2`);
    expect(list.map((e) => e.tenant).sort()).toEqual(["0tenant_x-y", longest].sort());
  });

  it.each([
    ["missing colon", "acme"],
    ["empty key", "acme:"],
    ["blank key", "acme:   "],
    ["empty tenant", ":key"],
    ["uppercase tenant", "Acme:key"],
    ["tenant starting with a dash", "-acme:key"],
    ["tenant starting with an underscore", "_acme:key"],
    ["tenant with a dot", "ac.me:key"],
    ["tenant of 33 characters", `${"a".repeat(33)}:key`],
    ["one good and one bad entry", "acme:key,broken"],
  ])("refuses the whole table for a %s", async (_why, raw) => {
    const table = await parseApiKeys(raw);
    expect(table.ok).toBe(false);
  });

  it("refuses the whole table when one key is listed under two tenants", async () => {
    const table = await parseApiKeys("acme:shared,globex:other,globex:shared");
    expect(table.ok).toBe(false);
  });

  it.each([[undefined], [""], ["   "], [","], [" , , "]])("refuses a missing or empty API_KEYS %j", async (raw) => {
    const table = await parseApiKeys(raw);
    expect(table.ok).toBe(false);
  });

  it("gives a reason for a refused table without revealing keys", async () => {
    const table = await parseApiKeys("acme:top-secret-key,globex:top-secret-key");
    expect(table.ok).toBe(false);
    if (!table.ok) {
      expect(table.reason.length).toBeGreaterThan(0);
      expect(table.reason).not.toContain("top-secret-key");
    }
  });
});

describe("keyForToken", () => {
  it("finds the tenant owning a key", async () => {
    const list = await entries("acme:a-key,globex:g-key");
    expect((await keyForToken(list, "a-key"))?.tenant).toBe("acme");
    expect((await keyForToken(list, "g-key"))?.tenant).toBe("globex");
  });

  it("finds nothing for an unknown, empty or near-miss key", async () => {
    const list = await entries("acme:a-key");
    expect((await keyForToken(list, "b-key"))?.tenant).toBeUndefined();
    expect((await keyForToken(list, ""))?.tenant).toBeUndefined();
    expect((await keyForToken(list, "a-key "))?.tenant).toBeUndefined();
    expect((await keyForToken(list, "a-ke"))?.tenant).toBeUndefined();
    expect((await keyForToken(list, "A-KEY"))?.tenant).toBeUndefined();
  });

  it("digests a key that matched once per table; a key that did not match, every time", async () => {
    const list = await entries("acme:a-key");
    const digest = vi.spyOn(crypto.subtle, "digest");
    try {
      expect((await keyForToken(list, "a-key"))?.tenant).toBe("acme");
      expect((await keyForToken(list, "a-key"))?.tenant).toBe("acme");
      expect(digest).toHaveBeenCalledTimes(1);
      expect((await keyForToken(list, "b-key"))?.tenant).toBeUndefined();
      expect((await keyForToken(list, "b-key"))?.tenant).toBeUndefined();
      expect(digest).toHaveBeenCalledTimes(3);
      // A new table (the secret changed) knows nothing of the old one's keys.
      expect((await keyForToken(await entries("globex:a-key"), "a-key"))?.tenant).toBe("globex");
    } finally {
      digest.mockRestore();
    }
  });

  it("finds nothing in an empty table", async () => {
    expect((await keyForToken([], "a-key"))?.tenant).toBeUndefined();
  });

  it("hashes keys to 32-byte SHA-256 digests", async () => {
    const digest = await sha256("abc");
    expect(digest.length).toBe(32);
    expect(hex(digest)).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
