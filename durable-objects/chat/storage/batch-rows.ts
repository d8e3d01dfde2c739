/**
 * The chat's `batches` table: what a batch keeps beside its jobs, a row only for a batch that has
 * any of it: where its events go (`callback_url`, `notify`), what a rerun's batch reran
 * (`./rerun-batches`), and the turn a bot handed over with `/tool-calls` (its context, its calls).
 */
import { cached, remember } from "./sql-cache";

/** What a batch keeps beside its jobs (`add`). */
export interface BatchKept {
  callback_url: string | null;
  notify: string | null;
  rerun?: RerunOf;
  /** A `/tool-calls` request's `context`, as JSON text. */
  context?: string;
  /** A `/tool-calls` request's calls as admitted (JSON of `AdmittedToolCall[]`). */
  tool_calls?: string;
}

/** What a `/tool-calls` batch keeps of the turn it handed over, as JSON text. */
export interface HandedOver {
  context?: string;
  tool_calls?: string;
}

/** What a rerun batch keeps on its `batches` row (`./rerun-batches`). */
export interface RerunOf {
  /** The batch it reran. */
  of: string;
  /** Jobs of that batch (or carried over into it) kept as they ended, by id. */
  carried: string[];
}

/** The cache key of whether any batch of the chat was handed over with `/tool-calls`. */
const HANDED_OVER = "handed-over";

export class BatchRows {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * A request's delivery options, kept with its batch, what a rerun's batch reran (`../rerun`), and
   * the turn a bot handed over with `/tool-calls` (JSON text): a row only for a batch with any of them.
   */
  add(batchId: string, kept: BatchKept, now: number): void {
    const { callback_url, notify, rerun, context, tool_calls } = kept;
    if (callback_url === null && notify === null && !rerun && context === undefined && tool_calls === undefined) return;
    this.sql.exec(
      `INSERT OR IGNORE INTO batches (batch_id, callback_url, notify, created_at, rerun_of, carried, context, tool_calls)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      batchId,
      callback_url,
      notify,
      now,
      rerun?.of ?? null,
      rerun ? JSON.stringify(rerun.carried) : null,
      context ?? null,
      tool_calls ?? null,
    );
    if (callback_url !== null) remember(this.sql, "callbacks", true);
    if (context !== undefined || tool_calls !== undefined) remember(this.sql, HANDED_OVER, true);
  }

  /**
   * What a `/tool-calls` request handed over with the batch (its context, its calls); no lookup in a
   * chat that was never handed a turn.
   */
  handedOver(batchId: string): HandedOver {
    const any = cached(
      this.sql,
      HANDED_OVER,
      () =>
        this.sql.exec(`SELECT 1 FROM batches WHERE context IS NOT NULL OR tool_calls IS NOT NULL LIMIT 1`).toArray()
          .length > 0,
    );
    if (!any) return {};
    const row = this.sql
      .exec<{ context: string | null; tool_calls: string | null }>(
        `SELECT context, tool_calls FROM batches WHERE batch_id = ?`,
        batchId,
      )
      .toArray()[0];
    return {
      ...(row?.context != null ? { context: row.context } : {}),
      ...(row?.tool_calls != null ? { tool_calls: row.tool_calls } : {}),
    };
  }

  /** A rerun of `batchId` with a job still active, if there is one: it runs the same calls. */
  activeRerunOf(batchId: string): string | undefined {
    return this.sql
      .exec<{ batch_id: string }>(
        `SELECT b.batch_id FROM batches b JOIN jobs j ON j.batch_id = b.batch_id
          WHERE b.rerun_of = ? AND j.completed_at IS NULL LIMIT 1`,
        batchId,
      )
      .toArray()[0]?.batch_id;
  }

  /** What a rerun's batch reran; undefined for any other batch. */
  rerunOf(batchId: string): RerunOf | undefined {
    const row = this.sql
      .exec<{ rerun_of: string | null; carried: string | null }>(
        `SELECT rerun_of, carried FROM batches WHERE batch_id = ?`,
        batchId,
      )
      .toArray()[0];
    if (!row?.rerun_of) return undefined;
    return { of: row.rerun_of, carried: JSON.parse(row.carried ?? "[]") as string[] };
  }

  /** Whether any batch was started with a `callback_url` (most chats never use one): saves a lookup per event. */
  hasCallbacks(): boolean {
    return cached(
      this.sql,
      "callbacks",
      () => this.sql.exec(`SELECT 1 FROM batches WHERE callback_url IS NOT NULL LIMIT 1`).toArray().length > 0,
    );
  }

  callbackUrl(batchId: string): string | null {
    return (
      this.sql
        .exec<{ url: string | null }>(`SELECT callback_url AS url FROM batches WHERE batch_id = ?`, batchId)
        .toArray()[0]?.url ?? null
    );
  }

  notify(batchId: string): string | null {
    return (
      this.sql.exec<{ notify: string | null }>(`SELECT notify FROM batches WHERE batch_id = ?`, batchId).toArray()[0]
        ?.notify ?? null
    );
  }

  /**
   * Batches whose jobs are gone go too (after the jobs' purge). A batch's callback_url outlives its
   * jobs while its events are kept, since a redelivery goes there too; the turn the bot handed over (context, calls) does not.
   */
  forgetGone(): void {
    this.sql.exec(
      `DELETE FROM batches WHERE batch_id NOT IN (SELECT batch_id FROM jobs)
         AND batch_id NOT IN (SELECT batch_id FROM events WHERE status != 'none' AND batch_id IS NOT NULL)`,
    );
    this.sql.exec(
      `UPDATE batches SET context = NULL, tool_calls = NULL
         WHERE (context IS NOT NULL OR tool_calls IS NOT NULL) AND batch_id NOT IN (SELECT batch_id FROM jobs)`,
    );
  }
}
