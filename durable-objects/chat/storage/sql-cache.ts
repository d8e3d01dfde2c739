/**
 * What a chat reads on nearly every call and seldom changes (its meta values,
 * whether its tables exist, the last event seq), kept in memory beside its
 * storage. A hot job path read `meta` 22 times per job before this. Writes go
 * through to SQLite and the cache together; the cache is dropped whenever
 * SQLite may hold something else: a failed transaction (its writes rolled
 * back) and a deleted chat.
 */
/** The key of the last event seq given out (`Events.latestSeq`). */
export const LATEST_SEQ = "seq";

const caches = new WeakMap<SqlStorage, Map<string, unknown>>();

function cacheOf(sql: SqlStorage): Map<string, unknown> {
  let cache = caches.get(sql);
  if (!cache) {
    cache = new Map();
    caches.set(sql, cache);
  }
  return cache;
}

export function cached<T>(sql: SqlStorage, key: string, read: () => T): T {
  const cache = cacheOf(sql);
  if (cache.has(key)) return cache.get(key) as T;
  const value = read();
  cache.set(key, value);
  return value;
}

export function isRemembered(sql: SqlStorage, key: string): boolean {
  return cacheOf(sql).has(key);
}

export function remember(sql: SqlStorage, key: string, value: unknown): void {
  cacheOf(sql).set(key, value);
}

/** The cached value, if any; reads nothing. */
export function peek<T>(sql: SqlStorage, key: string): T | undefined {
  return cacheOf(sql).get(key) as T | undefined;
}

/** Drops one cached value: SQLite may hold something else now. */
export function forget(sql: SqlStorage, key: string): void {
  cacheOf(sql).delete(key);
}

export function forgetCached(sql: SqlStorage): void {
  caches.delete(sql);
}

/** `transactionSync`, dropping the cache if it throws: the writes it made, cached ones included, are rolled back. */
export function transact<T>(storage: DurableObjectStorage, sql: SqlStorage, fn: () => T): T {
  try {
    return storage.transactionSync(fn);
  } catch (e) {
    forgetCached(sql);
    throw e;
  }
}
