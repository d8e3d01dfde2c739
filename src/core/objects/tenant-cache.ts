/**
 * The tenant's configuration and tool targets, kept in the isolate
 * (docs/api.md#configuration). A tenant may have millions of chats and one
 * object takes about 1,000 requests a second, so neither a request nor a batch
 * asks the TenantDO each time: an isolate asks at most once every
 * `TENANT_RECHECK_MS` per tenant. A `PUT` or `PATCH` is seen at once by the
 * isolate that answered it (read-your-writes) and by every other within 5 s.
 */
import type { TenantConfig } from "../config/schema";
import type { RunTarget } from "../tools/executors";

export const TENANT_RECHECK_MS = 5_000;
/**
 * A check asks for the document itself when the isolate's copy is older than this, whatever its
 * version: a version names what was written, and the defaults a version 0 stands for, or how
 * secrets are masked, may change with a deploy the copy was read across.
 */
export const CONFIG_DOCUMENT_MAX_AGE_MS = 60_000;
/** Tenants kept per isolate; the least recently stored go first. */
const MAX_TENANTS = 1_000;

/** The part of the TenantDO the cache reads. */
export interface TenantReads {
  /** The document is left out when `known` is the current version. */
  getConfig(known?: number): Promise<{ config?: TenantConfig; version: number }>;
  runTargets(toolNames: string[]): Promise<{ version: number; targets: Record<string, RunTarget> }>;
}

interface Config {
  config: TenantConfig;
  version: number;
  checkedAt: number;
  /** When the document itself was read (or written here); a check of its version does not move it. */
  readAt: number;
}

interface Targets {
  version: number;
  checkedAt: number;
  byName: Map<string, RunTarget>;
}

const configs = new Map<string, Config>();
const targets = new Map<string, Targets>();

function keep<T>(map: Map<string, T>, tenant: string, value: T): void {
  map.delete(tenant); // re-inserted last: the map's order is the order of use
  map.set(tenant, value);
  if (map.size > MAX_TENANTS) map.delete(map.keys().next().value!);
}

/**
 * The configuration (secrets masked), checked only when this isolate has not checked it for 5 s.
 * A check names the version kept, and the TenantDO sends the document only if it changed.
 */
export async function tenantConfigOf(
  tenant: string,
  reads: () => TenantReads,
  now = Date.now(),
): Promise<TenantConfig> {
  const kept = configs.get(tenant);
  if (kept && now - kept.checkedAt < TENANT_RECHECK_MS) return kept.config;
  const { config, version } = await reads().getConfig(
    kept && now - kept.readAt < CONFIG_DOCUMENT_MAX_AGE_MS ? kept.version : undefined,
  );
  if (config === undefined) {
    // Left out only when `kept` is current: it is now as fresh as the check. A write this isolate
    // answered meanwhile replaced it in the map, and stays.
    kept!.checkedAt = Math.max(kept!.checkedAt, now);
    if (configs.get(tenant) === kept) keep(configs, tenant, kept);
    return kept!.config;
  }
  // A write this isolate answered while the read was on its way is newer: it stays, and serves this request too.
  const current = configs.get(tenant);
  if (current && current.version > version) return current.config;
  rememberConfig(tenant, config, version, now, kept?.version);
  return config;
}

/** The document a `PUT` or `PATCH` stored, as its answer shows it: this isolate sees it at once. */
export function rememberConfig(
  tenant: string,
  config: TenantConfig,
  version: number,
  now = Date.now(),
  previous = configs.get(tenant)?.version,
): void {
  keep(configs, tenant, { config, version, checkedAt: now, readAt: now });
  // Targets read under another version may name a URL, secret or tool that changed.
  if (previous !== version || (targets.get(tenant)?.version ?? version) !== version) targets.delete(tenant);
}

/**
 * The tools' targets (secrets opened), asked for only when one is missing or this isolate has not checked
 * them for 5 s.
 */
export async function runTargetsOf(
  tenant: string,
  toolNames: string[],
  reads: () => TenantReads,
  now = Date.now(),
): Promise<Record<string, RunTarget>> {
  const kept = targets.get(tenant);
  const fresh = kept && now - kept.checkedAt < TENANT_RECHECK_MS;
  if (fresh && toolNames.every((n) => kept.byName.has(n))) return pick(kept.byName, toolNames);
  const answer = await reads().runTargets(toolNames);
  const entry: Targets =
    fresh && kept.version === answer.version ? kept : { version: answer.version, checkedAt: now, byName: new Map() };
  for (const [name, target] of Object.entries(answer.targets)) entry.byName.set(name, target);
  keep(targets, tenant, entry);
  return pick(entry.byName, toolNames);
}

/** A check of the tenant's config: the version the TenantDO answered, and when. */
export interface ConfigCheck {
  version: number;
  checkedAt: number;
}

/** This isolate's latest check of the tenant's config, handed to the chat with a batch (see `vouchFor`). */
export function configCheck(tenant: string): ConfigCheck | undefined {
  const kept = configs.get(tenant);
  return kept && { version: kept.version, checkedAt: kept.checkedAt };
}

/**
 * Another isolate checked the tenant's config (the worker, for the request that brought a batch):
 * what this one keeps under that version is as current as that check, and is not asked for again
 * until 5 s after it. A tenant whose chats are each used now and then asks its TenantDO once per
 * request, not twice. A stamp from a clock ahead of this one counts as now.
 */
export function vouchFor(tenant: string, check: ConfigCheck, now = Date.now()): void {
  const at = Math.min(check.checkedAt, now);
  for (const kept of [configs.get(tenant), targets.get(tenant)]) {
    if (kept && kept.version === check.version && kept.checkedAt < at) kept.checkedAt = at;
  }
}

const pick = (byName: Map<string, RunTarget>, names: string[]) =>
  Object.fromEntries(names.map((n) => [n, byName.get(n)!]));

/** Drops everything kept (tests: storage wiped between them, this isolate's memory not). */
export function forgetTenants(): void {
  configs.clear();
  targets.clear();
}
