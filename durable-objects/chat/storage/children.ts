/**
 * The child chats this chat created (the `children` table): which one a
 * `continue` call reaches, and the plan a subordinate job stores for its child.
 */
import type { ChatLimits } from "../../../src/core/jobs/messages";
import type { SubordinateRequest } from "../../../src/core/subagents/args";
import { createTable, hasTable } from "./schema";

export type ChildRow = {
  context_id: string;
  tool: string;
  profile: string;
  name: string;
};

/** What a subordinate job stores (jobs.spec) and the chat hands to the child chat. */
export interface SubordinatePlan {
  context_id: string;
  profile: string;
  name: string;
  level: number;
  request: SubordinateRequest;
  limits: ChatLimits;
  /** spawn_task `context: "fork"`: this chat's recent agent-loop messages, as text. */
  forked?: string;
  /** The tree's top-level chat, where the per-tree cap is counted. */
  root_chat_id: string;
}

export class Children {
  constructor(private readonly sql: SqlStorage) {}

  get(contextId: string): ChildRow | undefined {
    if (!hasTable(this.sql, "children")) return undefined;
    return this.sql
      .exec<ChildRow>(`SELECT context_id, tool, profile, name FROM children WHERE context_id = ?`, contextId)
      .toArray()[0];
  }

  /** The most recent child this chat created with `call_subordinate`. */
  latestDefault(): ChildRow | undefined {
    if (!hasTable(this.sql, "children")) return undefined;
    return this.sql
      .exec<ChildRow>(
        `SELECT context_id, tool, profile, name FROM children WHERE tool = 'call_subordinate'
           ORDER BY created_at DESC, rowid DESC LIMIT 1`,
      )
      .toArray()[0];
  }

  upsert(child: ChildRow, now: number): void {
    createTable(this.sql, "children");
    this.sql.exec(
      `INSERT INTO children (context_id, tool, profile, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (context_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at`,
      child.context_id,
      child.tool,
      child.profile,
      child.name,
      now,
      now,
    );
  }

  /** The child chat was deleted: it is no longer one to continue. */
  remove(contextId: string): void {
    if (!hasTable(this.sql, "children")) return;
    this.sql.exec(`DELETE FROM children WHERE context_id = ?`, contextId);
  }

  all(): ChildRow[] {
    if (!hasTable(this.sql, "children")) return [];
    return this.sql
      .exec<ChildRow>(`SELECT context_id, tool, profile, name FROM children ORDER BY created_at, rowid`)
      .toArray();
  }
}

export type ChildLookup = Pick<Children, "get" | "latestDefault">;
