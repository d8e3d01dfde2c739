/**
 * The per-tree subagent cap (docs/api.md#caps-permissions-and-depth): a top-level chat and all its
 * descendants together run at most `max_subagents_per_tree` subordinates. The
 * count lives in the tree's root chat as one slot per active subordinate job,
 * named by that job's id (allocated before the reservation), so a refusal can
 * list the jobs holding the tree. A child reserves slots there (one RPC,
 * before its own admission) and releases them when the jobs end. A slot also
 * expires at its job's deadline, so a release that never arrives cannot hold
 * a slot forever.
 */
import { createTable, hasTable } from "./schema";

/** What a descendant asks the tree's root for before its admission: slots for these jobs, under the cap. */
export interface TreeSlotAsk {
  job_ids: string[];
  limit: number;
  expires_at: number;
}

export class TreeSlots {
  constructor(private readonly sql: SqlStorage) {}

  /** The subordinate jobs holding the tree's slots. */
  holders(now: number): string[] {
    if (!hasTable(this.sql, "tree_slots")) return [];
    return this.sql
      .exec<{ slot: string }>(`SELECT slot FROM tree_slots WHERE expires_at > ? ORDER BY expires_at, slot`, now)
      .toArray()
      .map((r) => r.slot);
  }

  /** Grants slots to the first of `jobIds` that fit under `limit` (none when the tree is full). */
  grant(jobIds: string[], limit: number, expiresAt: number, now: number): { slots: string[]; holders: string[] } {
    createTable(this.sql, "tree_slots");
    this.sql.exec(`DELETE FROM tree_slots WHERE expires_at <= ?`, now);
    const holders = this.holders(now);
    const slots = jobIds.slice(0, Math.max(0, limit - holders.length));
    this.insert(slots, expiresAt);
    return { slots, holders };
  }

  /** Slots granted by the admission step of the root chat itself. */
  insert(jobIds: string[], expiresAt: number): void {
    if (jobIds.length === 0) return;
    createTable(this.sql, "tree_slots");
    for (const id of jobIds)
      this.sql.exec(`INSERT OR IGNORE INTO tree_slots (slot, expires_at) VALUES (?, ?)`, id, expiresAt);
  }

  release(jobIds: string[]): void {
    if (!hasTable(this.sql, "tree_slots")) return;
    for (const id of jobIds) this.sql.exec(`DELETE FROM tree_slots WHERE slot = ?`, id);
  }
}

/** Slots reserved for a request's new subordinates, and where they came from. */
export interface TreeReservation {
  /** Granted by the root for a child; the root grants its own inside admission (then `slots` is empty here). */
  remote: boolean;
  /** The job ids granted a slot. */
  slots: string[];
  /** The jobs that already held the tree's slots when these were granted. */
  holders: string[];
  expiresAt: number;
  root: string;
  tenant: string;
}

/** What a tiered batch may start under the tree cap, decided call by call. */
export interface TreeAllowance {
  /** Whether this subordinate (its job id, and how many were admitted before it) gets a slot. */
  grants(jobId: string, admittedBefore: number): boolean;
  holders: string[];
  limit: number;
}

export const UNLIMITED_TREE: TreeAllowance = { grants: () => true, holders: [], limit: Infinity };

/** The allowance a reservation gives: a child's granted ids, or the root's free slots (read inside admission). */
export function treeAllowance(tree: TreeReservation, limit: number, rootHolders: () => string[]): TreeAllowance {
  if (tree.remote) {
    const granted = new Set(tree.slots);
    return { grants: (id) => granted.has(id), holders: tree.holders, limit };
  }
  const holders = rootHolders();
  const free = limit - holders.length;
  return { grants: (_id, before) => before < free, holders, limit };
}
