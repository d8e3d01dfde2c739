/**
 * ChatDO storage layout. Created lazily on the first write, so a read of a
 * chat that never existed leaves no storage behind (docs/api.md#authentication-tenants-and-chats). The version lives
 * in `meta` because DO SQLite refuses `PRAGMA user_version`.
 */
import type { ChatLimits } from "../../../src/jobs/messages";
import { cached, isRemembered, remember } from "./sql-cache";

const SCHEMA_VERSION = 10;

const MIGRATIONS: Record<number, string[]> = {
  1: [
    `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE jobs (
       job_id TEXT PRIMARY KEY, chat_id TEXT NOT NULL, batch_id TEXT NOT NULL, idx INTEGER NOT NULL,
       tool_name TEXT NOT NULL, tool_args TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,
       read_only INTEGER NOT NULL, timeout_seconds INTEGER NOT NULL,
       created_at INTEGER NOT NULL, started_at INTEGER, completed_at INTEGER,
       attempt INTEGER NOT NULL DEFAULT 0, lease TEXT, deadline_at INTEGER NOT NULL,
       result TEXT, result_truncated INTEGER NOT NULL DEFAULT 0, error TEXT,
       context_id TEXT, usage TEXT, collected_at INTEGER,
       dispatched_at INTEGER)`, // no longer written (nothing read it, and rows written are billed)
    `CREATE INDEX jobs_by_state ON jobs (state, created_at)`,
    `CREATE INDEX jobs_by_batch ON jobs (batch_id, idx)`,
    // One alarm per object: every future duty is a row here, the alarm fires at the earliest.
    `CREATE TABLE timers (kind TEXT NOT NULL, ref TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (kind, ref))`,
    `CREATE INDEX timers_by_time ON timers (at)`,
    `CREATE TABLE idempotency (route TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
       request TEXT NOT NULL, job_ids TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (route, key))`,
    `CREATE TABLE log (id TEXT PRIMARY KEY, job_id TEXT NOT NULL, type TEXT NOT NULL, heading TEXT NOT NULL,
       kvps TEXT NOT NULL, content TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
    `CREATE INDEX log_by_job ON log (job_id)`,
  ],
  2: [
    // Subordinates: the request a subordinate job carries, and the children this chat created.
    `ALTER TABLE jobs ADD COLUMN spec TEXT`,
    // Sequential tier of a tiered batch: held back until the concurrent tier is terminal.
    `ALTER TABLE jobs ADD COLUMN held INTEGER NOT NULL DEFAULT 0`,
    `CREATE TABLE children (context_id TEXT PRIMARY KEY, tool TEXT NOT NULL, profile TEXT NOT NULL,
       name TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
    // This chat as a child: one turn per parent job, and the conversation across turns.
    `CREATE TABLE turns (parent_job_id TEXT PRIMARY KEY, parent_chat_id TEXT NOT NULL, lease TEXT NOT NULL,
       deadline_at INTEGER NOT NULL, state TEXT NOT NULL, steps INTEGER NOT NULL DEFAULT 0,
       awaiting TEXT, usage TEXT NOT NULL, outcome TEXT, created_at INTEGER NOT NULL, ended_at INTEGER,
       progress_at INTEGER NOT NULL, background TEXT)`,
    `CREATE TABLE messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, turn TEXT NOT NULL, body TEXT NOT NULL,
       created_at INTEGER NOT NULL)`,
    // The per-tree subagent cap (docs/api.md#caps-permissions-and-depth) is counted in the tree's root chat: one slot per active subordinate.
    `ALTER TABLE jobs ADD COLUMN tree_slot TEXT`,
    `CREATE TABLE tree_slots (slot TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)`,
    // Hand-back records (docs/api.md#hand-back-and-im-delivery); delivered as webhooks once events land.
    `CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, data TEXT NOT NULL,
       created_at INTEGER NOT NULL)`,
  ],
  3: [
    // `on_subagent_limit: "queue"`: a subordinate waiting for a slot, in the chat's queue order.
    `ALTER TABLE jobs ADD COLUMN queue_seq INTEGER`,
  ],
  4: [
    // Events become an outbox (docs/api.md#events-and-webhooks): `data` holds the whole envelope as delivered, so every retry sends the same body.
    `ALTER TABLE events ADD COLUMN id TEXT`,
    `ALTER TABLE events ADD COLUMN batch_id TEXT`,
    `ALTER TABLE events ADD COLUMN status TEXT NOT NULL DEFAULT 'none'`,
    `ALTER TABLE events ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE events ADD COLUMN next_at INTEGER`,
    `ALTER TABLE events ADD COLUMN last_status INTEGER`,
    `ALTER TABLE events ADD COLUMN last_error TEXT`,
    `ALTER TABLE events ADD COLUMN failed_at INTEGER`,
    `CREATE INDEX events_due ON events (status, next_at)`,
    // A request's delivery options (query parameters), kept while its jobs are.
    `CREATE TABLE batches (batch_id TEXT PRIMARY KEY, callback_url TEXT, notify TEXT, created_at INTEGER NOT NULL)`,
  ],
  5: [
    // Direct IM messages (docs/api.md#hand-back-and-im-delivery) waiting to be sent, retried like webhooks.
    `CREATE TABLE notifications (id INTEGER PRIMARY KEY AUTOINCREMENT, telegram_chat_id TEXT NOT NULL, text TEXT NOT NULL,
       status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER, last_error TEXT,
       created_at INTEGER NOT NULL)`,
  ],
  6: [
    // A Telegram message waits for the webhook's first try at the hand-back it follows.
    `ALTER TABLE notifications ADD COLUMN after_seq INTEGER`,
  ],
  7: [
    // Keyed by its primary key alone (no rowid plus a separate key index): every timer set or
    // cleared writes one row fewer, and timers are written several times per job (billed per row).
    `CREATE TABLE timers_keyed (kind TEXT NOT NULL, ref TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (kind, ref)) WITHOUT ROWID`,
    `INSERT INTO timers_keyed (kind, ref, at) SELECT kind, ref, at FROM timers`,
    `DROP TABLE timers`,
    `ALTER TABLE timers_keyed RENAME TO timers`,
    `CREATE INDEX timers_by_time ON timers (at)`,
    // Only events still waiting for delivery need finding by time; most are never pending (no
    // webhook) or soon delivered, so a partial index skips an index row for each of them.
    `DROP INDEX events_due`,
    `CREATE INDEX events_pending ON events (next_at) WHERE status = 'pending'`,
  ],
  8: [
    // Jobs run in the chat itself: what an instance lost mid-call may already have sent (docs/api.md#attempts-and-retries).
    `ALTER TABLE jobs ADD COLUMN sent INTEGER NOT NULL DEFAULT 0`,
    // Calls running in a runner object before this version may have left: none is re-sent blindly.
    // A subordinate stays at 0: handing it to its child again is idempotent.
    `UPDATE jobs SET sent = attempt WHERE state = 'running' AND kind = 'tool'`,
    // Their runners are gone: the heartbeat recovers those calls at once.
    `INSERT INTO timers (kind, ref, at) SELECT 'exec', '', 1 WHERE EXISTS (SELECT 1 FROM jobs WHERE state = 'running')
       ON CONFLICT (kind, ref) DO NOTHING`,
  ],
  9: [
    // An event row keeps only its own data and the chat's parent and root as they were (NULL: its own
    // root); tenant and chat id are added back when it is read (events.ts). Rows kept whole envelopes
    // before: about a third of their bytes.
    `ALTER TABLE events ADD COLUMN parent_chat_id TEXT`,
    `ALTER TABLE events ADD COLUMN root_chat_id TEXT`,
    `UPDATE events SET parent_chat_id = json_extract(data, '$.data.parent_chat_id'),
       root_chat_id = NULLIF(json_extract(data, '$.data.root_chat_id'), json_extract(data, '$.data.chat_id'))
       WHERE json_valid(data) AND json_type(data, '$.data') = 'object'`,
    `UPDATE events SET data = json_remove(json_extract(data, '$.data'), '$.tenant', '$.chat_id', '$.parent_chat_id', '$.root_chat_id', '$.seq')
       WHERE json_valid(data) AND json_type(data, '$.data') = 'object'`,
  ],
  10: [
    // The id the model gave the call (OpenAI/Anthropic `id`, AI SDK `toolCallId`): a bot hands each
    // result back to its model without keeping a job → call map across requests.
    `ALTER TABLE jobs ADD COLUMN tool_call_id TEXT`,
    // The last progress a running MCP tool reported, as JSON; cleared when the job ends.
    `ALTER TABLE jobs ADD COLUMN progress TEXT`,
    // An MCP result's content parts as the server sent them; `result` holds the text a model reads.
    `ALTER TABLE jobs ADD COLUMN content TEXT`,
    // When a webhook delivery got its 2xx: the deliveries listing shows it.
    `ALTER TABLE events ADD COLUMN delivered_at INTEGER`,
  ],
};

/** Whether the chat has tables (it has admitted something). Only a deletion makes it false again, and that drops the cache. */
/**
 * The tables as the migrations above leave them, created in one step: a new chat is the common case
 * (a bot often opens one per conversation) and replaying every migration cost it about 40 statements.
 * `schema.test.ts` checks this matches a chat migrated from version 1.
 */
const CURRENT: string[] = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE jobs (
     job_id TEXT PRIMARY KEY, chat_id TEXT NOT NULL, batch_id TEXT NOT NULL, idx INTEGER NOT NULL,
     tool_name TEXT NOT NULL, tool_args TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,
     read_only INTEGER NOT NULL, timeout_seconds INTEGER NOT NULL,
     created_at INTEGER NOT NULL, started_at INTEGER, completed_at INTEGER,
     attempt INTEGER NOT NULL DEFAULT 0, lease TEXT, deadline_at INTEGER NOT NULL,
     result TEXT, result_truncated INTEGER NOT NULL DEFAULT 0, error TEXT,
     context_id TEXT, usage TEXT, collected_at INTEGER, dispatched_at INTEGER,
     spec TEXT, held INTEGER NOT NULL DEFAULT 0, tree_slot TEXT, queue_seq INTEGER, sent INTEGER NOT NULL DEFAULT 0,
     tool_call_id TEXT, progress TEXT, content TEXT)`,
  `CREATE INDEX jobs_by_state ON jobs (state, created_at)`,
  `CREATE INDEX jobs_by_batch ON jobs (batch_id, idx)`,
  `CREATE TABLE idempotency (route TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
     request TEXT NOT NULL, job_ids TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (route, key))`,
  `CREATE TABLE log (id TEXT PRIMARY KEY, job_id TEXT NOT NULL, type TEXT NOT NULL, heading TEXT NOT NULL,
     kvps TEXT NOT NULL, content TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
  `CREATE INDEX log_by_job ON log (job_id)`,
  `CREATE TABLE children (context_id TEXT PRIMARY KEY, tool TEXT NOT NULL, profile TEXT NOT NULL,
     name TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
  `CREATE TABLE turns (parent_job_id TEXT PRIMARY KEY, parent_chat_id TEXT NOT NULL, lease TEXT NOT NULL,
     deadline_at INTEGER NOT NULL, state TEXT NOT NULL, steps INTEGER NOT NULL DEFAULT 0,
     awaiting TEXT, usage TEXT NOT NULL, outcome TEXT, created_at INTEGER NOT NULL, ended_at INTEGER,
     progress_at INTEGER NOT NULL, background TEXT)`,
  `CREATE TABLE messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, turn TEXT NOT NULL, body TEXT NOT NULL,
     created_at INTEGER NOT NULL)`,
  `CREATE TABLE tree_slots (slot TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)`,
  `CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, data TEXT NOT NULL,
     created_at INTEGER NOT NULL, id TEXT, batch_id TEXT, status TEXT NOT NULL DEFAULT 'none',
     attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER, last_status INTEGER, last_error TEXT, failed_at INTEGER,
     parent_chat_id TEXT, root_chat_id TEXT, delivered_at INTEGER)`,
  `CREATE INDEX events_pending ON events (next_at) WHERE status = 'pending'`,
  `CREATE TABLE batches (batch_id TEXT PRIMARY KEY, callback_url TEXT, notify TEXT, created_at INTEGER NOT NULL)`,
  `CREATE TABLE notifications (id INTEGER PRIMARY KEY AUTOINCREMENT, telegram_chat_id TEXT NOT NULL, text TEXT NOT NULL,
     status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER, last_error TEXT,
     created_at INTEGER NOT NULL, after_seq INTEGER)`,
  `CREATE TABLE timers (kind TEXT NOT NULL, ref TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (kind, ref)) WITHOUT ROWID`,
  `CREATE INDEX timers_by_time ON timers (at)`,
];

export function hasSchema(sql: SqlStorage): boolean {
  if (isRemembered(sql, "schema")) return true;
  const exists = sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'`).toArray().length > 0;
  if (exists) remember(sql, "schema", true);
  return exists;
}

/** Brings the chat's tables up to `upTo` (the current version; tests stop earlier to check an upgrade). */
export function ensureSchema(sql: SqlStorage, upTo = SCHEMA_VERSION): void {
  if (upTo === SCHEMA_VERSION && isRemembered(sql, "schema_current")) return;
  let version = 0;
  if (hasSchema(sql)) {
    const row = sql.exec(`SELECT value FROM meta WHERE key = 'schema_version'`).toArray()[0];
    version = Number(row?.value ?? 0);
  } else if (upTo === SCHEMA_VERSION) {
    for (const statement of CURRENT) sql.exec(statement);
    sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`, String(SCHEMA_VERSION));
    remember(sql, "schema_current", true);
    return;
  }
  for (let v = version + 1; v <= upTo; v++) {
    for (const statement of MIGRATIONS[v] ?? []) sql.exec(statement);
    sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`, String(v));
  }
  if (upTo === SCHEMA_VERSION) remember(sql, "schema_current", true);
}

export function readMeta(sql: SqlStorage, key: string): string | undefined {
  return cached(sql, `meta:${key}`, () => {
    const row = sql.exec(`SELECT value FROM meta WHERE key = ?`, key).toArray()[0];
    return row ? String(row.value) : undefined;
  });
}

/** The limits the chat last admitted jobs under, parsed once per stored value (several reads per job). Shared: do not mutate. */
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
