/**
 * Telegram messages waiting to be sent (docs/api.md#hand-back-and-im-delivery), written with the job end
 * they report and sent by the outbox on the webhook retry schedule.
 */
import { EVENT_TTL_MS } from "./events";
import { createTable, hasTable } from "./schema";

export type Notification = { id: number; telegram_chat_id: string; text: string; attempts: number };

export class Notifications {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * `afterSeq`: the `subagent.finish` event this message follows (docs/api.md#hand-back-and-im-delivery:
   * results reach the agent first).
   */
  add(telegramChatId: string | number, text: string, now: number, afterSeq?: number): void {
    createTable(this.sql, "notifications");
    this.sql.exec(
      `INSERT INTO notifications (telegram_chat_id, text, next_at, created_at, after_seq) VALUES (?, ?, ?, ?, ?)`,
      JSON.stringify(telegramChatId),
      text,
      now,
      now,
      afterSeq ?? null,
    );
  }

  /**
   * Messages due, once the webhook had its first try at the hand-back they follow (a failing webhook never
   * holds them).
   */
  due(now: number, limit: number): Notification[] {
    if (!hasTable(this.sql, "notifications")) return [];
    return this.sql
      .exec<Notification>(
        `SELECT id, telegram_chat_id, text, attempts FROM notifications n
         WHERE status = 'pending' AND next_at <= ?
           AND NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = n.after_seq AND e.status = 'pending' AND e.attempts = 0)
         ORDER BY id LIMIT ?`,
        now,
        limit,
      )
      .toArray();
  }

  /** The next message to try; one waiting for its hand-back's first try is woken by that event instead. */
  nextDue(): number | undefined {
    if (!hasTable(this.sql, "notifications")) return undefined;
    return (
      this.sql
        .exec<{ at: number | null }>(
          `SELECT MIN(next_at) AS at FROM notifications n WHERE status = 'pending'
             AND NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = n.after_seq AND e.status = 'pending' AND e.attempts = 0)`,
        )
        .one().at ?? undefined
    );
  }

  pendingCount(): number {
    if (!hasTable(this.sql, "notifications")) return 0;
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM notifications WHERE status = 'pending'`).one().n;
  }

  /** Records an attempt: `at` to try again, `sent`, or `failed` with the reason. */
  settle(id: number, outcome: { sent: true } | { retryAt: number; error: string } | { failed: string }): void {
    if (!hasTable(this.sql, "notifications")) return;
    if ("sent" in outcome)
      this.sql.exec(
        `UPDATE notifications SET status = 'sent', attempts = attempts + 1, next_at = NULL WHERE id = ?`,
        id,
      );
    else if ("retryAt" in outcome) {
      this.sql.exec(
        `UPDATE notifications SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE id = ?`,
        outcome.retryAt,
        outcome.error,
        id,
      );
    } else
      this.sql.exec(
        `UPDATE notifications SET status = 'failed', attempts = attempts + 1, next_at = NULL, last_error = ?
           WHERE id = ?`,
        outcome.failed,
        id,
      );
  }

  purge(now: number): void {
    if (!hasTable(this.sql, "notifications")) return;
    this.sql.exec(`DELETE FROM notifications WHERE status != 'pending' AND created_at <= ?`, now - EVENT_TTL_MS);
  }
}
