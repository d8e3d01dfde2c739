/**
 * ChatDO storage layout. Created lazily on the first write, so a read of a
 * chat that never existed leaves no storage behind (docs/api.md#authentication-tenants-and-chats). The version lives
 * in `meta` because DO SQLite refuses `PRAGMA user_version`.
 */
import type { ChatLimits } from "../../../src/core/jobs/messages";
import { cached, forget, isRemembered, LATEST_SEQ, peek, remember } from "./sql-cache";
import {
  BASE_VERSION,
  CURRENT_SCHEMA,
  FIRST_USE,
  FIRST_USE_DDL,
  MIGRATIONS,
  SCHEMA,
  SCHEMA_VERSION,
  type FirstUseTable,
  type Migration,
} from "./schema-steps";

export { FIRST_USE, MIGRATIONS, SCHEMA_VERSION, type FirstUseTable, type Migration };

/** Set once this instance has read every `meta` row: a key missing from the cache then has no row. */
const META_READ = "meta:*";

const tableNote = (table: FirstUseTable) => `table:${table}`;

/**
 * Whether the chat has `table`, remembered either way: only `createTable` makes one, and a failed transaction
 * drops the note.
 */
export function hasTable(sql: SqlStorage, table: FirstUseTable): boolean {
  return cached(
    sql,
    tableNote(table),
    () => sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, table).toArray().length > 0,
  );
}

/** Creates `table` unless the chat has it (before a first write to it). */
export function createTable(sql: SqlStorage, table: FirstUseTable): void {
  if (hasTable(sql, table)) return;
  sql.exec(FIRST_USE_DDL.get(table)!);
  remember(sql, tableNote(table), true);
}

/**
 * Whether the chat has tables (it has admitted something), remembered either way: only
 * `ensureSchema` makes them, a failed transaction drops the note, and a deletion (which makes it
 * false again) drops the cache. A new chat's first request asked ten times before its tables existed.
 */
export function hasSchema(sql: SqlStorage): boolean {
  return cached(
    sql,
    "schema",
    () => sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'`).toArray().length > 0,
  );
}

/**
 * Brings the chat's tables to the latest version: a new chat gets `CURRENT_SCHEMA`, a stored one
 * runs the steps after the version it is at, once each, in order. Once done, the object remembers
 * it and later calls read nothing. `steps` is for tests of the migration path (a new chat given
 * fewer or other steps than `MIGRATIONS` starts from the base schema); the chat always runs `MIGRATIONS`.
 */
export function ensureSchema(sql: SqlStorage, steps: readonly Migration[] = MIGRATIONS): void {
  const latest = BASE_VERSION + steps.length;
  const done = `schema:v${latest}`;
  if (isRemembered(sql, done)) return;
  let version: number;
  let fresh = false;
  if (hasSchema(sql)) {
    version = Number(sql.exec(`SELECT value FROM meta WHERE key = 'schema_version'`).one().value);
  } else if (MIGRATIONS.every((step, i) => steps[i] === step)) {
    for (const statement of CURRENT_SCHEMA) sql.exec(statement);
    version = SCHEMA_VERSION;
    setVersion(sql, version);
    fresh = true;
  } else {
    for (const statement of SCHEMA) sql.exec(statement);
    version = BASE_VERSION;
    setVersion(sql, version);
  }
  remember(sql, "schema", true);
  if (fresh && version === latest) {
    // Tables just made hold nothing but their version: nothing to read back from them.
    remember(sql, "meta:schema_version", String(version));
    remember(sql, META_READ, true);
    remember(sql, LATEST_SEQ, 0);
  }
  const stepsRun = version < latest;
  for (; version < latest; version++) {
    for (const statement of steps[version - BASE_VERSION]!) sql.exec(statement);
    setVersion(sql, version + 1);
  }
  if (!fresh || stepsRun) forget(sql, META_READ); // the steps write meta rows of their own
  if (!fresh) for (const table of FIRST_USE) forget(sql, tableNote(table)); // and the base schema has every table
  remember(sql, done, true);
}

const setVersion = (sql: SqlStorage, version: number) =>
  sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`, String(version));

/**
 * A meta value. The instance's first read takes the whole table (a dozen short rows): a chat that
 * was evicted while idle reads six or more keys in its first turn, a statement each otherwise.
 * Every later write goes through `writeMeta`, and `ensureSchema`, whose steps may write rows
 * directly, drops the note, so the cache stays whole.
 */
export function readMeta(sql: SqlStorage, key: string): string | undefined {
  if (!isRemembered(sql, META_READ)) {
    for (const row of sql.exec<{ key: string; value: string }>(`SELECT key, value FROM meta`))
      remember(sql, `meta:${row.key}`, String(row.value));
    remember(sql, META_READ, true);
  }
  return peek<string>(sql, `meta:${key}`);
}

/**
 * The limits the chat last admitted jobs under, parsed once per stored value (several reads per job). Shared:
 * do not mutate.
 */
export function readLimits(sql: SqlStorage): ChatLimits | undefined {
  const raw = readMeta(sql, "limits");
  if (raw === undefined) return undefined;
  const hit = cached(sql, "limits:parsed", () => ({ raw, limits: JSON.parse(raw) as ChatLimits }));
  if (hit.raw === raw) return hit.limits;
  const fresh = { raw, limits: JSON.parse(raw) as ChatLimits };
  remember(sql, "limits:parsed", fresh);
  return fresh.limits;
}

/** Writes only a changed value: most batches restate the same tenant, chat and limits, and rows written are billed. */
export function writeMeta(sql: SqlStorage, key: string, value: string): void {
  if (readMeta(sql, key) === value) return;
  sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)`, key, value);
  remember(sql, `meta:${key}`, value);
}
