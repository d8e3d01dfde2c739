/**
 * A tenant's live streams, counted against `limits.max_streams` (docs/api.md#live-streams). Red
 * team, round 3: one tenant opened 300 tenant streams and every other tenant's `/parallel` went
 * from 30–100 ms to 10–13 s. The tenant stream's sockets are this object's own; a chat's sockets
 * are its chat's, which asks here before accepting one (saying how many it has open) and reports
 * what it has left after each close. A chat restarted by a deploy loses its sockets without a
 * close to report, so when the count says the tenant is full, the chats it counts are asked
 * again (`recount`) before a stream is refused: an overcount never locks a tenant out, and no
 * stream stops counting while it is open.
 */
export class StreamShare {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS chat_streams (chat_id TEXT PRIMARY KEY, sockets INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
    );
  }

  /** Live streams of the tenant: `own` tenant-stream sockets plus what the chats last said. */
  open(own: number): number {
    return own + this.sql.exec<{ n: number }>(`SELECT COALESCE(SUM(sockets), 0) AS n FROM chat_streams`).one().n;
  }

  /** The chats counted, to ask again when the tenant looks full. */
  chats(): string[] {
    return this.sql
      .exec<{ chat_id: string }>(`SELECT chat_id FROM chat_streams`)
      .toArray()
      .map((r) => r.chat_id);
  }

  /** One more stream of `chatId`, which has `sockets` open now, if the tenant has room; false when it has `max`. */
  admitChat(chatId: string, sockets: number, own: number, max: number, now: number): boolean {
    const counted = this.sql
      .exec<{ n: number }>(`SELECT COALESCE(SUM(sockets), 0) AS n FROM chat_streams WHERE chat_id = ?`, chatId)
      .one().n;
    if (this.open(own) - counted + sockets >= max) return false;
    this.chatStreams(chatId, sockets + 1, now);
    return true;
  }

  /** What a chat has open (after a close, or when asked again). */
  chatStreams(chatId: string, sockets: number, now: number): void {
    if (sockets > 0)
      this.sql.exec(
        `INSERT OR REPLACE INTO chat_streams (chat_id, sockets, updated_at) VALUES (?, ?, ?)`,
        chatId,
        sockets,
        now,
      );
    else this.sql.exec(`DELETE FROM chat_streams WHERE chat_id = ?`, chatId);
  }
}
