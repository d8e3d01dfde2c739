/**
 * The chat's tables through time (docs/architecture.md#the-chat-object-room-by-room): the schema the
 * first chats were stored at, every step since, the tables a new chat gets in one step, and the
 * tables made on first use. `./schema` brings a chat to the latest version.
 */
import { jobsV4, jobsV19, BATCHES_V18, eventsV3, metaV5, JOB_COLUMNS_V3 } from "./schema-tables";
/** The version `SCHEMA` is: the first chats were stored at it. */
export const BASE_VERSION = 1;

/** The tables as the first chats were stored (v1); `CURRENT_SCHEMA` is what a new chat gets. */
export const SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  // `spec`: a subordinate job's request. `held`: the sequential tier of a tiered batch, held back until
  // the concurrent tier is terminal. `tree_slot`: a subordinate's slot in its tree's root chat (the
  // per-tree cap). `queue_seq`: a subordinate waiting for a slot (`on_subagent_limit: "queue"`), in the
  // chat's queue order. `sent`: what a call lost mid-flight may already have sent (docs/api.md#attempts-and-retries).
  // `tool_call_id`: the id the model gave the call, so a bot hands each result back without a job → call
  // map. `progress`: the last progress a running MCP tool reported (JSON), cleared when the job ends.
  // `content`: an MCP result's parts as the server sent them; `result` holds the text a model reads.
  // `dispatched_at` is no longer written (nothing used it, and rows written are billed); the job reader
  // still selects it.
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
  // The children this chat created.
  `CREATE TABLE children (context_id TEXT PRIMARY KEY, tool TEXT NOT NULL, profile TEXT NOT NULL,
     name TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
  // This chat as a child: one turn per parent job, and the conversation across turns.
  `CREATE TABLE turns (parent_job_id TEXT PRIMARY KEY, parent_chat_id TEXT NOT NULL, lease TEXT NOT NULL,
     deadline_at INTEGER NOT NULL, state TEXT NOT NULL, steps INTEGER NOT NULL DEFAULT 0,
     awaiting TEXT, usage TEXT NOT NULL, outcome TEXT, created_at INTEGER NOT NULL, ended_at INTEGER,
     progress_at INTEGER NOT NULL, background TEXT)`,
  `CREATE TABLE messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, turn TEXT NOT NULL, body TEXT NOT NULL,
     created_at INTEGER NOT NULL)`,
  // The per-tree subagent cap (docs/api.md#caps-permissions-and-depth) is counted in the tree's root chat:
  // one slot per active subordinate.
  `CREATE TABLE tree_slots (slot TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)`,
  // Events and their webhook outbox (docs/api.md#hand-back-and-im-delivery, docs/api.md#events-and-webhooks).
  // A row keeps only its own data and the chat's parent and root as they were (NULL: its own root);
  // tenant and chat id are added back when it is read (events.ts).
  `CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, data TEXT NOT NULL,
     created_at INTEGER NOT NULL, id TEXT, batch_id TEXT, status TEXT NOT NULL DEFAULT 'none',
     attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER, last_status INTEGER, last_error TEXT, failed_at INTEGER,
     parent_chat_id TEXT, root_chat_id TEXT, delivered_at INTEGER)`,
  // Only events still waiting for delivery need finding by time; most are never pending (no
  // webhook) or soon delivered, so a partial index skips an index row for each of them.
  `CREATE INDEX events_pending ON events (next_at) WHERE status = 'pending'`,
  // A request's delivery options (query parameters), kept while its jobs are.
  `CREATE TABLE batches (batch_id TEXT PRIMARY KEY, callback_url TEXT, notify TEXT, created_at INTEGER NOT NULL)`,
  // Direct IM messages (docs/api.md#hand-back-and-im-delivery) waiting to be sent, retried like webhooks;
  // `after_seq`: a Telegram
  // message waits for the webhook's first try at the hand-back it follows.
  `CREATE TABLE notifications (id INTEGER PRIMARY KEY AUTOINCREMENT, telegram_chat_id TEXT NOT NULL, text TEXT NOT NULL,
     status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER, last_error TEXT,
     created_at INTEGER NOT NULL, after_seq INTEGER)`,
  // One alarm per object: every future duty is a row here, the alarm fires at the earliest. Keyed by its
  // primary key alone (no rowid plus a separate key index): every timer set or cleared writes one row
  // fewer, and timers are written several times per job (billed per row).
  `CREATE TABLE timers (kind TEXT NOT NULL, ref TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (kind, ref)) WITHOUT ROWID`,
  `CREATE INDEX timers_by_time ON timers (at)`,
];

/** One change to the schema: statements run in order, in the same step as the version they lead to. */
export type Migration = readonly string[];

/**
 * Changes after the base schema, oldest first: `MIGRATIONS[i]` brings a chat from version
 * BASE_VERSION + i to BASE_VERSION + i + 1. To change the schema once chats are stored, append a
 * step here (ALTER TABLE …, data moved with it) and leave `SCHEMA` and the earlier steps as they
 * are: a stored chat runs the steps after its version, a new chat `SCHEMA` and then every step.
 * A table in `FIRST_USE` may be missing from a chat made since v5: a step that changes one runs
 * only where it exists, and `FIRST_USE` gets its new definition.
 */
export const MIGRATIONS: readonly Migration[] = [
  // v2 `lane`: the call lane a running call was handed to (`runner` since v12), NULL when
  // it runs in the chat. The chat recovers such a call only once that lane says it no longer holds it.
  [`ALTER TABLE jobs ADD COLUMN lane INTEGER`],
  // v3, fewer rows written per job (they are billed): a job's log row is read off the job row (its
  // id and type move there, written with the job), and only active jobs are indexed by time. The
  // index's condition is `completed_at IS NULL`, which a claim leaves alone (a condition on `state`
  // would rewrite the entry on every claim); a job leaves the index once, when it ends. Events lose
  // AUTOINCREMENT, which wrote `sqlite_sequence` with every event: `seq` is given out by the chat
  // anyway, and the newest one given out is kept in `meta` before a purge could delete it.
  [
    `ALTER TABLE jobs ADD COLUMN log_id TEXT`,
    `ALTER TABLE jobs ADD COLUMN log_type TEXT`,
    `UPDATE jobs SET log_id = (SELECT id FROM log WHERE log.job_id = jobs.job_id), log_type = (SELECT type FROM log WHERE log.job_id = jobs.job_id)`,
    `DROP TABLE log`,
    `DROP INDEX jobs_by_state`,
    `CREATE INDEX jobs_active ON jobs (created_at) WHERE completed_at IS NULL`,
    `INSERT OR REPLACE INTO meta (key, value) SELECT 'events_seq', CAST(seq AS TEXT) FROM sqlite_sequence WHERE name = 'events'`,
    eventsV3("events_v3"),
    `INSERT INTO events_v3 (seq, type, data, created_at, id, batch_id, status, attempts, next_at, last_status, last_error, failed_at, parent_chat_id, root_chat_id, delivered_at)
       SELECT seq, type, data, created_at, id, batch_id, status, attempts, next_at, last_status, last_error, failed_at, parent_chat_id, root_chat_id, delivered_at FROM events`,
    `DROP TABLE events`,
    `ALTER TABLE events_v3 RENAME TO events`,
    `CREATE INDEX events_pending ON events (next_at) WHERE status = 'pending'`,
  ],
  // v4, fewer rows written per job again. The jobs table is keyed by `job_id` alone (WITHOUT ROWID):
  // a rowid table keeps a separate index for a TEXT primary key, one more row with every job. A
  // job's start and end events live on its row when nothing waits to deliver them (no webhook, no
  // callback): their seq and id go in the claim and end updates, which write the row anyway, and the
  // events are read back off the job (events.ts). `finished_cut`: the `max_result_chars` its
  // job.finished was cut at, so the event reads the same after the limit changes.
  [
    jobsV4("jobs_v4"),
    `INSERT INTO jobs_v4 (${JOB_COLUMNS_V3}) SELECT ${JOB_COLUMNS_V3} FROM jobs`,
    `DROP TABLE jobs`,
    `ALTER TABLE jobs_v4 RENAME TO jobs`,
    `CREATE INDEX jobs_by_batch ON jobs (batch_id, idx)`,
    `CREATE INDEX jobs_active ON jobs (created_at) WHERE completed_at IS NULL`,
  ],
  // v5: `meta` keyed by `key` alone (WITHOUT ROWID), so a value written is one row, not two (the
  // rowid table kept a separate index for its text key). A new chat's first batch writes six.
  [
    metaV5("meta_v5"),
    `INSERT INTO meta_v5 (key, value) SELECT key, value FROM meta`,
    `DROP TABLE meta`,
    `ALTER TABLE meta_v5 RENAME TO meta`,
  ],
  // v6, one gate for pending jobs (docs/architecture.md#gates): a sequential tier's `held` and the
  // subagent queue's `queue_seq` become `waiting_for` and `wait_seq`, and their timers (`start`: a
  // released call to dispatch; `queue`: the subagent queue) the `gate` timer or the dispatch watchdog.
  [
    `ALTER TABLE jobs ADD COLUMN waiting_for TEXT`,
    `ALTER TABLE jobs ADD COLUMN wait_seq INTEGER`,
    `UPDATE jobs SET waiting_for = 'tier' WHERE held = 1 AND state = 'pending'`,
    `UPDATE jobs SET waiting_for = 'subagent_slot', wait_seq = queue_seq WHERE queue_seq IS NOT NULL AND state = 'pending'`,
    `ALTER TABLE jobs DROP COLUMN held`,
    `ALTER TABLE jobs DROP COLUMN queue_seq`,
    `UPDATE OR REPLACE timers SET kind = 'dispatch', ref = '' WHERE kind = 'start'`,
    `UPDATE OR REPLACE timers SET kind = 'gate', ref = CASE ref WHEN 'safety' THEN 'subagent_slot:safety' ELSE 'subagent_slot' END WHERE kind = 'queue'`,
  ],
  // v7 `metadata`: a batch's request metadata on each of its jobs (NULL without any), so every event
  // and record built from a job row echoes it, and a subordinate's jobs inherit it.
  [`ALTER TABLE jobs ADD COLUMN metadata TEXT`],
  // v8 `flow`: a call under flow rules keeps its holds, the rules as admitted and where it waits (JSON).
  [`ALTER TABLE jobs ADD COLUMN flow TEXT`],
  // v9 `approval`: a call under an approval rule keeps its request and decision (JSON); `approval_sync` 1
  // while the tenant's list of approvals has not heard its latest.
  [`ALTER TABLE jobs ADD COLUMN approval TEXT`, `ALTER TABLE jobs ADD COLUMN approval_sync INTEGER`],
  // v10 `budget`: the budget of the top-level batch a job counts against, and its limits (JSON).
  [`ALTER TABLE jobs ADD COLUMN budget TEXT`],
  // v11 `renewed_at`: when the Worker runner holding a running call last renewed its lease (`lane` is
  // then `WORKER_RUNNER`); a runner silent too long is lost, and the heartbeat recovers its call.
  [`ALTER TABLE jobs ADD COLUMN renewed_at INTEGER`],
  // v12 `lane` is `runner`: every call runs in a runner that renews its lease (docs/architecture.md#where-a-call-runs).
  [`ALTER TABLE jobs RENAME COLUMN lane TO runner`],
  // v13 `trace`: the job's trace context (its span, its parent, the gates it left), written with the
  // row and with the updates that write it anyway, so a traced batch costs no row of its own.
  [`ALTER TABLE jobs ADD COLUMN trace TEXT`],
  // v14 `error_type`: why a job did not succeed, written by the end that writes its state; rows ended
  // before it are typed from their state and text when read (`failureOf`).
  [`ALTER TABLE jobs ADD COLUMN error_type TEXT`],
  // v15 `rerun_of`: a rerun's jobs name the job they ran again; its batch the batch, and the jobs of
  // it that it carried over (JSON ids), so its answer and `batch.finished` hold the whole batch.
  [
    `ALTER TABLE jobs ADD COLUMN rerun_of TEXT`,
    `ALTER TABLE batches ADD COLUMN rerun_of TEXT`,
    `ALTER TABLE batches ADD COLUMN carried TEXT`,
  ],
  // v16 `spend`: 1 on a call under the tenant's spending limit, which asks the tenant's spend object as
  // it starts (the `spend` gate).
  [`ALTER TABLE jobs ADD COLUMN spend INTEGER`],
  // v17 `context`: what a bot handed with a `/tool-calls` batch to continue its turn (JSON), returned on
  // `batch.finished` and by the batch's record, purged with the batch.
  [`ALTER TABLE batches ADD COLUMN context TEXT`],
  // v18 `tool_calls`: a `/tool-calls` batch's calls as admitted (JSON: each call's id, name, and its job
  // or why it was refused), so `batch.finished` answers every call the model made, refused ones too.
  [`ALTER TABLE batches ADD COLUMN tool_calls TEXT`],
  // v19 `waits`: the gates a job left and when (JSON of [reason, ms] pairs), written by the update
  // that lets it go on, so a record says what an ended job waited for (the dashboard's wait bars).
  [`ALTER TABLE jobs ADD COLUMN waits TEXT`],
];

/** The version a chat is at once `ensureSchema` ran. */
export const SCHEMA_VERSION = BASE_VERSION + MIGRATIONS.length;

/**
 * A new chat's tables at `SCHEMA_VERSION`, made in one step: the base schema and every step
 * after it would build the same tables (a test compares the two), at ten times the DDL, and a bot
 * often opens a chat per conversation. A schema change appends its step to `MIGRATIONS` and
 * changes this to match.
 */
export const CURRENT_SCHEMA: readonly string[] = [
  metaV5("meta"),
  jobsV19("jobs"),
  `CREATE INDEX jobs_by_batch ON jobs (batch_id, idx)`,
  `CREATE INDEX jobs_active ON jobs (created_at) WHERE completed_at IS NULL`,
  BATCHES_V18,
  ...SCHEMA.filter((statement) => /^CREATE TABLE timers /.test(statement)),
  eventsV3("events"),
  `CREATE INDEX events_pending ON events (next_at) WHERE status = 'pending'`,
  `CREATE INDEX timers_by_time ON timers (at)`,
];

/**
 * Tables a chat made since v5 creates when it first writes one: idempotency keys, subagents (the
 * children it made, its turns and messages as a child, its tree's slots) and IM messages, which most
 * chats never use, while each `CREATE` is rows written (billed) in every new chat: 18 of the 116 a
 * chat opened for one batch of 8 wrote. A chat stored before v5 has them all.
 */
export const FIRST_USE = ["idempotency", "children", "turns", "messages", "tree_slots", "notifications"] as const;
/**
 * Tables added since, made on first use by every chat, stored or new (none has one before it writes there): a
 * day's usage (docs/api.md#usage-and-cost).
 */
const LATER_TABLES = {
  usage_days: `CREATE TABLE usage_days (day TEXT PRIMARY KEY, own TEXT NOT NULL, subtree TEXT NOT NULL) WITHOUT ROWID`,
} as const;
export type FirstUseTable = (typeof FIRST_USE)[number] | keyof typeof LATER_TABLES;
export const FIRST_USE_DDL = new Map<FirstUseTable, string>([
  ...FIRST_USE.map(
    (table) => [table, SCHEMA.find((statement) => statement.startsWith(`CREATE TABLE ${table} (`))!] as const,
  ),
  ...Object.entries(LATER_TABLES).map(([table, ddl]) => [table as FirstUseTable, ddl] as const),
]);
