/**
 * The index of a tenant's chats in the TenantDO (docs/api.md#companion-routes): every chat
 * registers here when it starts, children under their parent, so
 * `GET /v1/chats` can list the tenant's chats as trees without asking each
 * one, and the tenant stream can wake the recently active ones.
 */
import { chatTree, MAX_LISTED_CHILDREN, type IndexRow, type ListedChat } from "../../src/core/chats/chat-tree";

export class ChatIndex {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS chats (chat_id TEXT PRIMARY KEY, parent_chat_id TEXT, level INTEGER NOT NULL DEFAULT 0,
         name TEXT NOT NULL, created_at INTEGER NOT NULL, last_activity INTEGER NOT NULL)`,
    );
    // Serves both the page of top-level chats (parent NULL, by id) and each chat's children.
    sql.exec(`CREATE INDEX IF NOT EXISTS chats_by_parent ON chats (parent_chat_id, chat_id)`);
  }

  register(chatId: string, now: number, parent: string | null, level: number, name: string): void {
    this.sql.exec(
      `INSERT INTO chats (chat_id, parent_chat_id, level, name, created_at, last_activity) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (chat_id) DO UPDATE SET last_activity = excluded.last_activity`,
      chatId,
      parent,
      level,
      name,
      now,
      now,
    );
  }

  forget(chatId: string): void {
    this.sql.exec(`DELETE FROM chats WHERE chat_id = ?`, chatId);
  }

  /**
   * A chat being deleted leaves the index with every descendant at once, by the parent links (UNION stops at
   * any cycle); the ids that left.
   */
  forgetSubtree(chatId: string): string[] {
    const gone = this.sql
      .exec<{ chat_id: string }>(
        `WITH RECURSIVE subtree(chat_id) AS (SELECT ? UNION SELECT c.chat_id FROM chats c JOIN subtree s
           ON c.parent_chat_id = s.chat_id)
         DELETE FROM chats WHERE chat_id IN (SELECT chat_id FROM subtree) RETURNING chat_id`,
        chatId,
      )
      .toArray()
      .map((r) => r.chat_id);
    return gone.includes(chatId) ? gone : [chatId, ...gone];
  }

  /** The chats active in the last day, most recent first, at most 200. */
  recent(now: number): string[] {
    return this.sql
      .exec<{ chat_id: string }>(
        `SELECT chat_id FROM chats WHERE last_activity > ? ORDER BY last_activity DESC LIMIT 200`,
        now - 24 * 3600_000,
      )
      .toArray()
      .map((c) => c.chat_id);
  }

  /** A page of top-level chats, each with its descendants nested (see `src/core/chats/chat-tree` for the bounds). */
  list(cursor: string | null, limit: number): { chats: ListedChat[]; next_cursor: string | null } {
    const rows = this.sql
      .exec<IndexRow>(
        `SELECT chat_id, parent_chat_id, level, name, created_at, last_activity FROM chats
         WHERE parent_chat_id IS NULL AND chat_id > ? ORDER BY chat_id LIMIT ?`,
        cursor ?? "",
        limit + 1,
      )
      .toArray();
    const page = rows.slice(0, limit);
    return {
      chats: chatTree(page, (parents) => this.#childrenOf(parents)),
      next_cursor: rows.length > limit ? page[page.length - 1]!.chat_id : null,
    };
  }

  /** One level of the tree in one statement: each parent's newest children, and how many it has. */
  #childrenOf(parents: string[]): { rows: IndexRow[]; counts: Map<string, number> } {
    const rows = this.sql
      .exec<IndexRow & { n: number }>(
        `SELECT chat_id, parent_chat_id, level, name, created_at, last_activity, n FROM (
           SELECT *, ROW_NUMBER() OVER (PARTITION BY parent_chat_id ORDER BY created_at DESC, chat_id DESC) AS rn,
                  COUNT(*) OVER (PARTITION BY parent_chat_id) AS n
           FROM chats WHERE parent_chat_id IN (SELECT value FROM json_each(?)))
         WHERE rn <= ?`,
        JSON.stringify(parents), // a list, not one bound parameter each (SQLite allows 100)
        MAX_LISTED_CHILDREN,
      )
      .toArray();
    return { rows, counts: new Map(rows.map((r) => [r.parent_chat_id!, r.n])) };
  }
}
