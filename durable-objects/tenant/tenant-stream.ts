/**
 * The tenant-wide live stream (docs/api.md#live-streams, for the dashboard): chats publish
 * their events here while someone listens; each message is the event
 * envelope plus a tenant-wide `cursor` to resume with. Kept 24 h, at most
 * 1000 messages. While nobody has listened for a few minutes, chats are
 * told so and stop publishing.
 */
import type { StreamLog } from "../shared/live-stream";

const KEPT = 1000;
const TTL_MS = 24 * 3600_000;
/** After the last listener leaves, keep taking events this long, so a reconnect with `after` misses nothing. */
export const LISTEN_GRACE_MS = 5 * 60_000;

export class TenantStream implements StreamLog {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS stream (cursor INTEGER PRIMARY KEY AUTOINCREMENT, message TEXT NOT NULL, created_at INTEGER NOT NULL)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS stream_state (id INTEGER PRIMARY KEY CHECK (id = 1), last_listener_at INTEGER NOT NULL)`,
    );
  }

  /** Stores an event envelope (JSON text) as a stream message; returns the message. */
  append(envelope: string, now: number): string {
    const cursor = this.latest() + 1;
    const message = `{"cursor":${cursor},${envelope.slice(1)}`;
    this.sql.exec(`INSERT INTO stream (cursor, message, created_at) VALUES (?, ?, ?)`, cursor, message, now);
    return message;
  }

  /** A live-only envelope as a stream message: the cursor of the latest kept one, nothing stored. */
  live(envelope: string): string {
    return `{"cursor":${this.latest()},${envelope.slice(1)}`;
  }

  latest(): number {
    return this.sql
      .exec<{ n: number }>(`SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'stream'), 0) AS n`)
      .one().n;
  }

  oldest(): number | undefined {
    return this.sql.exec<{ c: number | null }>(`SELECT MIN(cursor) AS c FROM stream`).one().c ?? undefined;
  }

  after(cursor: number, limit: number): string[] {
    return this.sql
      .exec<{ message: string }>(`SELECT message FROM stream WHERE cursor > ? ORDER BY cursor LIMIT ?`, cursor, limit)
      .toArray()
      .map((r) => r.message);
  }

  /** A listener was here at `now` (connected, or just left). */
  touch(now: number): void {
    this.sql.exec(`INSERT OR REPLACE INTO stream_state (id, last_listener_at) VALUES (1, ?)`, now);
  }

  /** Someone listens, or did within the grace period. */
  listening(sockets: number, now: number): boolean {
    if (sockets > 0) return true;
    const last = this.sql
      .exec<{ at: number }>(`SELECT last_listener_at AS at FROM stream_state WHERE id = 1`)
      .toArray()[0]?.at;
    return last !== undefined && now - last < LISTEN_GRACE_MS;
  }

  purge(now: number): void {
    this.sql.exec(`DELETE FROM stream WHERE created_at <= ?`, now - TTL_MS);
    this.sql.exec(
      `DELETE FROM stream WHERE cursor <= (SELECT cursor FROM stream ORDER BY cursor DESC LIMIT 1 OFFSET ?)`,
      KEPT,
    );
  }
}
