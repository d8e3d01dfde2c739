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
/**
 * What an isolate keeps of its tenants' documents and targets, each kind, in characters of JSON; the
 * least recently stored go first. A count of tenants would bound neither memory (a document may be
 * 1 MiB) nor misses: once a round of tenants outnumbers it, every one of them misses in turn, and pays
 * for a full read on each batch. Budgeted by size, every tenant of a deployment with modest documents
 * stays (`API_KEYS` names about 50), and a few large ones cannot crowd the 128 MB isolate.
 */
export const MAX_KEPT_CHARS = 4 * 1024 * 1024;

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

/** Entries by tenant in the order they were stored, each with its weight, dropped oldest first past the budget. */
class KeptByTenant<T> {
  readonly #entries = new Map<string, { value: T; chars: number }>();
  #chars = 0;

  get(tenant: string): T | undefined {
    return this.#entries.get(tenant)?.value;
  }

  /** Stores `value` as the most recent, weighing `chars`; the tenant's previous weight no longer counts. */
  keep(tenant: string, value: T, chars: number): void {
    this.delete(tenant); // re-inserted last: the map's order is the order of use
    this.#entries.set(tenant, { value, chars });
    this.#chars += chars;
    for (const oldest of this.#entries.keys()) {
      if (this.#chars <= MAX_KEPT_CHARS || oldest === tenant) break;
      this.delete(oldest);
    }
  }

  /** The weight stored with the tenant's entry, 0 when there is none. */
  weightOf(tenant: string): number {
    return this.#entries.get(tenant)?.chars ?? 0;
  }

  delete(tenant: string): void {
    const kept = this.#entries.get(tenant);
    if (!kept) return;
    this.#chars -= kept.chars;
    this.#entries.delete(tenant);
  }

  clear(): void {
    this.#entries.clear();
    this.#chars = 0;
  }
}

const configs = new KeptByTenant<Config>();
const targets = new KeptByTenant<Targets>();
const weigh = (value: unknown) => JSON.stringify(value)?.length ?? 0;

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
    if (configs.get(tenant) === kept) configs.keep(tenant, kept!, configs.weightOf(tenant));
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
  configs.keep(tenant, { config, version, checkedAt: now, readAt: now }, weigh(config));
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
  const extend = fresh && kept.version === answer.version;
  const entry: Targets = extend ? kept : { version: answer.version, checkedAt: now, byName: new Map() };
  let chars = extend ? targets.weightOf(tenant) : 0;
  for (const [name, target] of Object.entries(answer.targets)) {
    if (!entry.byName.has(name)) chars += name.length + weigh(target);
    entry.byName.set(name, target);
  }
  targets.keep(tenant, entry, chars);
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
