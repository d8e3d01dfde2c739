/**
 * The per-tree subagent cap (SPEC §5.3): a top-level chat and all its
 * descendants together run at most `max_subagents_per_tree` subordinates. The
 * count lives in the tree's root chat as one slot per active subordinate job;
 * a child reserves slots there (one RPC, before its own admission) and releases
 * them when the jobs end. A slot also expires at its job's deadline, so a
 * release that never arrives cannot hold a slot forever.
 */
import { nanoid } from "nanoid";
import { ApiError } from "../../src/http/errors";

export class TreeSlots {
  constructor(private readonly sql: SqlStorage) {}

  running(now: number): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM tree_slots WHERE expires_at > ?`, now).one().n;
  }

  /** Grants up to `count` slots under `limit`; fewer (or none) when the tree is full. */
  grant(count: number, limit: number, expiresAt: number, now: number): { slots: string[]; running: number } {
    this.sql.exec(`DELETE FROM tree_slots WHERE expires_at <= ?`, now);
    const running = this.running(now);
    const slots = newSlots(Math.max(0, Math.min(count, limit - running)));
    this.insert(slots, expiresAt);
    return { slots, running };
  }

  /** Slots granted by the admission step of the root chat itself. */
  insert(slots: string[], expiresAt: number): void {
    for (const slot of slots) this.sql.exec(`INSERT INTO tree_slots (slot, expires_at) VALUES (?, ?)`, slot, expiresAt);
  }

  release(slots: string[]): void {
    for (const slot of slots) this.sql.exec(`DELETE FROM tree_slots WHERE slot = ?`, slot);
  }
}

export const newSlots = (n: number) => Array.from({ length: n }, () => `slot-${nanoid(12)}`);

/** Slots reserved for a request's new subordinates, and where they came from. */
export interface TreeReservation {
  /** Granted by the root for a child; the root grants its own inside admission (then `slots` is empty here). */
  remote: boolean;
  slots: string[];
  /** Slots the tree already held when these were granted. */
  running: number;
  expiresAt: number;
  root: string;
  tenant: string;
}

/** What a chat may start under the tree cap: `allowance` more subordinates, with `running` already counted. */
export interface TreeAllowance {
  allowance: number;
  running: number;
  limit: number;
}

export function treeLimit(running: number, requested: number, limit: number): ApiError {
  return new ApiError(
    429,
    "subagent_limit",
    `Subagent limit reached (${running} running + ${requested} requested > ${limit}); wait for running subagents or split the batch.`,
    // The jobs holding the tree's slots live in other chats; their ids are not known here.
    { scope: "tree", running, limit, requested, running_job_ids: [] },
  );
}
