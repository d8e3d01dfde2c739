/**
 * The tenant's issued WebSocket tickets (format: `src/core/auth/tickets.ts`):
 * single use, 60 s, optionally for one chat only. Only digests are stored.
 */
import { newTicket, TICKET_TTL_SECONDS } from "../../src/core/auth/tickets";
import { sha256Hex } from "../../src/core/util/digest";

const digest = sha256Hex;

export class Tickets {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS tickets (digest TEXT PRIMARY KEY, chat_id TEXT, expires_at INTEGER NOT NULL)`);
  }

  async issue(tenant: string, chatId: string | null, now: number): Promise<string> {
    const ticket = newTicket(tenant);
    this.sql.exec(`DELETE FROM tickets WHERE expires_at <= ?`, now);
    this.sql.exec(
      `INSERT INTO tickets (digest, chat_id, expires_at) VALUES (?, ?, ?)`,
      await digest(ticket),
      chatId,
      now + TICKET_TTL_SECONDS * 1000,
    );
    return ticket;
  }

  /** Spends the ticket: its scope (a chat id, or null for any stream of the tenant), or undefined when not valid. */
  async redeem(ticket: string, now: number): Promise<{ chat_id: string | null } | undefined> {
    const key = await digest(ticket);
    const row = this.sql
      .exec<{ chat_id: string | null; expires_at: number }>(
        `SELECT chat_id, expires_at FROM tickets WHERE digest = ?`,
        key,
      )
      .toArray()[0];
    if (!row) return undefined;
    this.sql.exec(`DELETE FROM tickets WHERE digest = ?`, key);
    return row.expires_at > now ? { chat_id: row.chat_id } : undefined;
  }
}
