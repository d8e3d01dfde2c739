/**
 * The `API_KEYS` secret: comma-separated `tenant:key` pairs (docs/api.md#authentication-tenants-and-chats). A tenant
 * may list several keys so keys can be rotated without downtime. Keys are kept
 * as SHA-256 digests and compared in constant time, so timing does not reveal
 * which prefix of a key was right. A key that matched is remembered by the
 * isolate (as the secret that lists it is), so its next requests skip the digest.
 */
import { hex, sha256 } from "../../core/util/digest";

export const TENANT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export interface KeyEntry {
  tenant: string;
  digest: Uint8Array;
}

/** A key that matched: its tenant, and an id for it that does not reveal it (per-key rate limits). */
export interface MatchedKey {
  tenant: string;
  id: string;
}

export type KeyTable = { ok: true; entries: KeyEntry[] } | { ok: false; reason: string };

/** Parses API_KEYS. A malformed entry or a key under two tenants makes the whole table unusable. */
export async function parseApiKeys(raw: string | undefined): Promise<KeyTable> {
  if (!raw?.trim()) return { ok: false, reason: "API_KEYS is not set" };
  const owner = new Map<string, string>();
  for (const part of raw.split(",")) {
    const pair = part.trim();
    if (!pair) continue;
    const at = pair.indexOf(":");
    const tenant = pair.slice(0, at).trim();
    const key = pair.slice(at + 1).trim();
    if (at < 0 || !TENANT_PATTERN.test(tenant) || !key) {
      return {
        ok: false,
        reason: `API_KEYS must be comma-separated tenant:key pairs with tenant ids matching ${TENANT_PATTERN.source}`,
      };
    }
    const previous = owner.get(key);
    if (previous !== undefined && previous !== tenant) {
      return { ok: false, reason: "API_KEYS lists one key under two tenants" };
    }
    owner.set(key, tenant);
  }
  if (owner.size === 0) return { ok: false, reason: "API_KEYS has no entries" };
  const entries = await Promise.all([...owner].map(async ([key, tenant]) => ({ tenant, digest: await sha256(key) })));
  return { ok: true, entries };
}

function equalDigests(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ (b[i] ?? 0);
  return diff === 0;
}

/** Keys that matched, by table: only keys listed in it, so at most one per entry. */
const matched = new WeakMap<KeyEntry[], Map<string, MatchedKey>>();

/** The key `token` is, checking every entry so the time taken does not depend on which one matched. */
export async function keyForToken(entries: KeyEntry[], token: string): Promise<MatchedKey | undefined> {
  const known = matched.get(entries)?.get(token);
  if (known !== undefined) return known;
  const digest = await sha256(token);
  let found: MatchedKey | undefined;
  for (const entry of entries)
    if (equalDigests(entry.digest, digest))
      found = { tenant: entry.tenant, id: `${entry.tenant}:${hex(digest.slice(0, 8))}` };
  if (found !== undefined) {
    let keys = matched.get(entries);
    if (!keys) {
      keys = new Map();
      matched.set(entries, keys);
    }
    keys.set(token, found);
  }
  return found;
}
