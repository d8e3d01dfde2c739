/**
 * Where a flow shard keeps its lines (docs/architecture.md#flow-objects): a row per line (rule and
 * key) without its waiters, and a row per waiting call, so a change writes the line's small row and
 * the waiters that came or went, not a line of a thousand waiters. The lines read are kept in
 * memory, since the shard is their only writer. The tables are made on the first write and go with
 * the shard's `deleteAll()`.
 */
import type { FlowHold } from "../../src/core/flow/rules";
import type { Line } from "../../src/core/flow/shard";
import type { InLine } from "../../src/core/flow/slots";
import { LazyTable } from "../shared/lazy-table";

/**
 * Lines one shard keeps: past this many, those holding nothing but a spent rate go, longest idle first (their
 * rate refills early).
 */
export const MAX_LINES = 10_000;
/** Keys whose lines one instance keeps in memory at most (`MAX_LINES` lines, and keys read that had none). */
const KNOWN_KEYS = 2 * MAX_LINES;

/**
 * A line as this instance knows it, and the waiters that have a row, with the place (seq) the row
 * holds: a waiter not there, or there with another place, is written.
 */
export interface Known {
  line: Line;
  stored: Map<string, number>;
}

/** A changed line to keep, and when the shard must look at it again. */
export interface KeptLine {
  hold: FlowHold;
  line: Line;
  wakeAt: number;
}

export class ShardRows {
  // Keyed by key first: a request reads all the rules of a key in one statement. Each line keeps its
  // tenant too, whose chats the alarm wakes (a table of its own would be a row more per shard).
  readonly #lines: LazyTable;
  /** The calls in line, a row each (a shard of an older version kept them in their line's row: read from both). */
  readonly #waiters: LazyTable;
  /** The lines of the keys read so far, by key and then rule (a key read that has none, too). */
  readonly #known = new Map<string, Map<string, Known>>();
  /** Lines stored, counted once per instance and kept up to date (a count per write would read every row). */
  #count: number | undefined;

  constructor(private readonly sql: SqlStorage) {
    this.#lines = new LazyTable(sql, "lines", [
      // The line last: the alarm reads `wake_at` of every row without reading past it into the line.
      `CREATE TABLE IF NOT EXISTS lines (key TEXT NOT NULL, rule TEXT NOT NULL, tenant TEXT NOT NULL, wake_at INTEGER NOT NULL,
      idle INTEGER NOT NULL, updated_at INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (key, rule)) WITHOUT ROWID`,
    ]);
    this.#waiters = new LazyTable(sql, "waiters", [
      `CREATE TABLE IF NOT EXISTS waiters (key TEXT NOT NULL, rule TEXT NOT NULL, job_id TEXT NOT NULL,
        waiter TEXT NOT NULL, PRIMARY KEY (key, rule, job_id)) WITHOUT ROWID`,
    ]);
  }

  exists(): boolean {
    return this.#lines.exists();
  }

  /** The keys that have lines (for `figures`). */
  keys(): string[] {
    if (!this.exists()) return [];
    return this.sql
      .exec<{ key: string }>(`SELECT DISTINCT key FROM lines`)
      .toArray()
      .map((r) => r.key);
  }

  /** The lines whose time to be looked at has come, with the tenant they belong to. */
  due(now: number): { tenant: string; hold: FlowHold }[] {
    if (!this.exists()) return [];
    // No index on `wake_at`: each would be one more row written with every line; the alarm reads them all.
    return this.sql
      .exec<{ tenant: string; rule: string; key: string }>(
        `SELECT tenant, rule, key FROM lines WHERE wake_at <= ?`,
        now,
      )
      .toArray()
      .map((r) => ({ tenant: r.tenant, hold: { rule: r.rule, key: r.key } }));
  }

  /** When the soonest line must be looked at; null when there is none. */
  nextWake(): number | null {
    if (!this.exists()) return null;
    return this.sql.exec<{ at: number | null }>(`SELECT MIN(wake_at) AS at FROM lines`).one().at;
  }

  /**
   * A request begins: keys come and go with the calls that bring them, so past `KNOWN_KEYS` in
   * memory they are all forgotten and read again as needed (never during a request, whose lines
   * must stay the ones it changes).
   */
  begin(): void {
    if (this.#known.size >= KNOWN_KEYS) this.#known.clear();
  }

  /** The lines of `key`, from memory or else from storage (and then kept in memory). */
  read(key: string): Map<string, Known> {
    const cached = this.#known.get(key);
    if (cached) return cached;
    const known = new Map<string, Known>();
    this.#known.set(key, known);
    if (!this.exists()) return known;
    for (const row of this.sql.exec<{ rule: string; line: string }>(`SELECT rule, line FROM lines WHERE key = ?`, key))
      known.set(row.rule, { line: JSON.parse(row.line) as Line, stored: new Map() });
    if (known.size > 0 && this.#waiters.exists()) {
      // A line whose own row holds waiters was written by a version that kept them there (one rolled
      // back to): its rows here are stale, and the next write replaces or deletes them.
      const inRow = new Set([...known].filter(([, e]) => e.line.slots.waiters.length > 0).map(([rule]) => rule));
      const rows = this.sql
        .exec<{ rule: string; waiter: string }>(`SELECT rule, waiter FROM waiters WHERE key = ?`, key)
        .toArray();
      for (const row of rows) {
        const entry = known.get(row.rule);
        const waiter = JSON.parse(row.waiter) as InLine;
        if (!entry) continue;
        entry.stored.set(waiter.job_id, inRow.has(row.rule) ? -1 : waiter.seq);
        if (!inRow.has(row.rule)) entry.line.slots.waiters.push(waiter);
      }
    }
    for (const entry of known.values()) entry.line.slots.waiters.sort((a, b) => a.seq - b.seq);
    return known;
  }

  /**
   * Keeps the changed lines (their row without the waiters, a row for each waiter that has none yet,
   * less the rows of those gone) and deletes the lines that hold nothing, in memory too. `created`:
   * lines new to storage among them, less those deleted. The lines stored after it.
   */
  write(tenant: string, kept: readonly KeptLine[], gone: readonly FlowHold[], created: number, now: number): number {
    if (kept.length && !this.exists()) {
      this.#lines.create();
      this.#count = 0;
    }
    const lineRows: unknown[][] = [];
    const added: unknown[][] = [];
    const left: { hold: FlowHold; ids: string[] }[] = [];
    for (const { hold, line, wakeAt } of kept) {
      const { slots } = line;
      const idle = slots.holders.length + slots.offers.length + slots.waiters.length === 0 ? 1 : 0;
      const row = JSON.stringify({ ...line, slots: { ...slots, waiters: [] } });
      lineRows.push([hold.key, hold.rule, tenant, wakeAt, idle, now, row]);
      const stored = this.read(hold.key).get(hold.rule)?.stored ?? new Map<string, number>();
      const inLine = new Map(slots.waiters.map((w) => [w.job_id, w.seq]));
      // A waiter that left and came back in one request has a new place: its row is written again.
      for (const w of slots.waiters)
        if (stored.get(w.job_id) !== w.seq) added.push([hold.key, hold.rule, w.job_id, JSON.stringify(w)]);
      const ids = [...stored.keys()].filter((id) => !inLine.has(id));
      if (ids.length) left.push({ hold, ids });
      this.#known.get(hold.key)?.set(hold.rule, { line, stored: inLine });
    }
    // SQLite takes at most 100 bound values a statement: 14 lines of 7, 25 waiters of 4.
    for (let i = 0; i < lineRows.length; i += 14) {
      const rows = lineRows.slice(i, i + 14);
      this.sql.exec(
        `INSERT OR REPLACE INTO lines (key, rule, tenant, wake_at, idle, updated_at, line)
           VALUES ${rows.map(() => "(?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
        ...rows.flat(),
      );
    }
    if (added.length) this.#waiters.create();
    for (let i = 0; i < added.length; i += 25) {
      const rows = added.slice(i, i + 25);
      this.sql.exec(
        `INSERT OR REPLACE INTO waiters (key, rule, job_id, waiter) VALUES ${rows.map(() => "(?, ?, ?, ?)").join(", ")}`,
        ...rows.flat(),
      );
    }
    for (const { hold, ids } of left) this.#deleteWaiters(hold, ids);
    for (const hold of gone) {
      this.sql.exec(`DELETE FROM lines WHERE key = ? AND rule = ?`, hold.key, hold.rule);
      if (this.#waiters.exists()) this.sql.exec(`DELETE FROM waiters WHERE key = ? AND rule = ?`, hold.key, hold.rule);
      this.#known.get(hold.key)?.delete(hold.rule);
    }
    if (!this.exists()) return 0;
    this.#count =
      this.#count === undefined
        ? this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM lines`).one().n
        : this.#count + created;
    if (this.#count > MAX_LINES) this.#forgetIdle();
    return this.#count;
  }

  /** The shard's storage was deleted (`deleteAll()`): nothing is stored or known any more. */
  dropped(): void {
    this.#lines.dropped();
    this.#waiters.dropped();
    this.#known.clear();
    this.#count = undefined;
  }

  #deleteWaiters(hold: FlowHold, ids: readonly string[]): void {
    for (let i = 0; i < ids.length; i += 98) {
      const some = ids.slice(i, i + 98);
      this.sql.exec(
        `DELETE FROM waiters WHERE key = ? AND rule = ? AND job_id IN (${some.map(() => "?").join(", ")})`,
        hold.key,
        hold.rule,
        ...some,
      );
    }
  }

  /** Past `MAX_LINES`, the lines that hold only a spent rate go, longest idle first (rare: a full scan is fine). */
  #forgetIdle(): void {
    this.sql.exec(
      // Not the unkeyed rules' lines: new keys of one rule must not hand a tenant-wide rule a fresh burst.
      `DELETE FROM lines WHERE (key, rule) IN (SELECT key, rule FROM lines WHERE idle = 1 AND key != ''
         ORDER BY updated_at LIMIT ?)`,
      this.#count! - MAX_LINES,
    );
    this.#known.clear(); // read again as needed: which lines went is not worth a statement
    this.#count = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM lines`).one().n;
  }
}
