/**
 * The chat's tables as they were at each version a step rebuilt or a new chat creates them at: the
 * shapes `./schema-steps` moves a stored chat through, kept apart from the steps so those read as
 * the history they are.
 */
/**
 * The jobs table from v4 on. Its two seqs come first: the newest is read by scanning the table,
 * and a column after a long result would be read from its overflow pages.
 */
export const jobsV4 = (name: string) => `CREATE TABLE ${name} (
  job_id TEXT PRIMARY KEY, started_seq INTEGER, finished_seq INTEGER, chat_id TEXT NOT NULL, batch_id TEXT NOT NULL, idx INTEGER NOT NULL,
  tool_name TEXT NOT NULL, tool_args TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,
  read_only INTEGER NOT NULL, timeout_seconds INTEGER NOT NULL,
  created_at INTEGER NOT NULL, started_at INTEGER, completed_at INTEGER,
  attempt INTEGER NOT NULL DEFAULT 0, lease TEXT, deadline_at INTEGER NOT NULL,
  result TEXT, result_truncated INTEGER NOT NULL DEFAULT 0, error TEXT,
  context_id TEXT, usage TEXT, collected_at INTEGER, dispatched_at INTEGER,
  spec TEXT, held INTEGER NOT NULL DEFAULT 0, tree_slot TEXT, queue_seq INTEGER, sent INTEGER NOT NULL DEFAULT 0,
  tool_call_id TEXT, progress TEXT, content TEXT, lane INTEGER, log_id TEXT, log_type TEXT,
  started_event TEXT, finished_event TEXT, finished_cut INTEGER) WITHOUT ROWID`;

/**
 * The jobs table from v6 on: v4's, with `held` and `queue_seq` given way to `waiting_for` (the gate
 * a pending job waits at, NULL when it may start) and `wait_seq` (its arrival at a gate that orders
 * by arrival), in the column order v6's step leaves them.
 */
const jobsV6 = (name: string) =>
  jobsV4(name)
    .replace("held INTEGER NOT NULL DEFAULT 0, ", "")
    .replace("queue_seq INTEGER, ", "")
    .replace(") WITHOUT ROWID", ", waiting_for TEXT, wait_seq INTEGER) WITHOUT ROWID");

/** The jobs table from v7 on: v6's, with the batch's request metadata (docs/api.md#request-metadata). */
const jobsV7 = (name: string) => jobsV6(name).replace(") WITHOUT ROWID", ", metadata TEXT) WITHOUT ROWID");

/** The jobs table from v8 on: v7's, with a call's flow holds (docs/api.md#flow-control). */
const jobsV8 = (name: string) => jobsV7(name).replace(") WITHOUT ROWID", ", flow TEXT) WITHOUT ROWID");

/**
 * The jobs table from v9 on: v8's, with a call's approval and whether the tenant's list has its latest
 * (docs/api.md#approvals).
 */
const jobsV9 = (name: string) =>
  jobsV8(name).replace(") WITHOUT ROWID", ", approval TEXT, approval_sync INTEGER) WITHOUT ROWID");

/**
 * The jobs table from v10 on: v9's, with the budget of the top-level batch a job counts against
 * (docs/api.md#budgets).
 */
const jobsV10 = (name: string) => jobsV9(name).replace(") WITHOUT ROWID", ", budget TEXT) WITHOUT ROWID");

/**
 * The jobs table from v11 on: v10's, with when a Worker runner last renewed a running call's lease
 * (docs/architecture.md#where-a-call-runs).
 */
const jobsV11 = (name: string) => jobsV10(name).replace(") WITHOUT ROWID", ", renewed_at INTEGER) WITHOUT ROWID");

/** The jobs table from v12 on: v11's, with `lane` called `runner`, where it stood. */
const jobsV12 = (name: string) => jobsV11(name).replace(" lane INTEGER,", " runner INTEGER,");

/**
 * The jobs table from v13 on: v12's, with the job's trace context (JSON of `JobTrace`,
 * docs/api.md#traces), NULL for a job of an untraced batch.
 */
const jobsV13 = (name: string) => jobsV12(name).replace(") WITHOUT ROWID", ", trace TEXT) WITHOUT ROWID");

/**
 * The jobs table from v14 on: v13's, with why a job did not succeed (`error_type`,
 * docs/api.md#why-a-job-failed), NULL while it is active and on a success.
 */
const jobsV14 = (name: string) => jobsV13(name).replace(") WITHOUT ROWID", ", error_type TEXT) WITHOUT ROWID");

/**
 * The jobs table from v15 on: v14's, with the job a rerun ran again (`rerun_of`,
 * docs/api.md#rerun), NULL on every other job.
 */
const jobsV15 = (name: string) => jobsV14(name).replace(") WITHOUT ROWID", ", rerun_of TEXT) WITHOUT ROWID");

/** The jobs table from v16 on: v15's, with `spend` (1: a call under the tenant's spending limit). */
const jobsV16 = (name: string) => jobsV15(name).replace(") WITHOUT ROWID", ", spend INTEGER) WITHOUT ROWID");

/** The jobs table from v19 on: v16's, with `waits` (the gates a job left, and when). */
export const jobsV19 = (name: string) => jobsV16(name).replace(") WITHOUT ROWID", ", waits TEXT) WITHOUT ROWID");

/**
 * The batches table from v18 on: a rerun's batch says which batch it reran and the jobs it carried over
 * (v15); a `/tool-calls` batch keeps the bot's `context` (v17) and its calls as admitted (v18).
 */
export const BATCHES_V18 = `CREATE TABLE batches (batch_id TEXT PRIMARY KEY, callback_url TEXT, notify TEXT, created_at INTEGER NOT NULL, rerun_of TEXT, carried TEXT, context TEXT, tool_calls TEXT)`;

/** The events table from v3 on (no AUTOINCREMENT). */
export const eventsV3 = (
  name: string,
) => `CREATE TABLE ${name} (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL,
  created_at INTEGER NOT NULL, id TEXT, batch_id TEXT, status TEXT NOT NULL DEFAULT 'none',
  attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER, last_status INTEGER, last_error TEXT, failed_at INTEGER,
  parent_chat_id TEXT, root_chat_id TEXT, delivered_at INTEGER)`;

/** The meta table from v5 on. */
export const metaV5 = (name: string) =>
  `CREATE TABLE ${name} (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`;

/** The jobs table's columns at v3, which v4 moves to its new table as they are. */
export const JOB_COLUMNS_V3 = `job_id, chat_id, batch_id, idx, tool_name, tool_args, kind, state, read_only, timeout_seconds,
  created_at, started_at, completed_at, attempt, lease, deadline_at, result, result_truncated, error, context_id, usage,
  collected_at, dispatched_at, spec, held, tree_slot, queue_seq, sent, tool_call_id, progress, content, lane, log_id, log_type`;
