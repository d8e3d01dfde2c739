/**
 * One flow shard of a tenant (`flow/<tenant>/<shard>`, docs/architecture.md#flow-objects): the
 * lines (rule and key) whose keys hash here, a row each, written with every change; the pure
 * rules are `src/core/flow/shard.ts` and `src/core/flow/slots.ts`. When a slot frees, the chats of the
 * waiters next in line are woken (they ask again); the alarm covers leases that run out, a rate that
 * holds the next start back, and a spent rate refilling. A line that holds nothing is deleted, and
 * the shard's storage with its last line: an idle tenant keeps no flow object at all.
 */
import { DurableObject } from "cloudflare:workers";
import { chatName } from "../../src/core/objects/names";
import type { FlowHold } from "../../src/core/flow/rules";
import {
  askLines,
  giveBackLines,
  lineId,
  settleLine,
  type Line,
  type LineFigures,
  type Lines,
  type ShardAnswer,
  type ShardAsk,
} from "../../src/core/flow/shard";
import { figures, type SlotRule } from "../../src/core/flow/slots";
import { LazyTable } from "../shared/lazy-table";

/**
 * Lines one shard keeps: past this many, those holding nothing but a spent rate go, longest idle first (their
 * rate refills early).
 */
export const MAX_LINES = 10_000;

type Changed = { hold: FlowHold; line: Line; created: boolean };

export class FlowShardDO extends DurableObject<Env> {
  // Keyed by key first: a request reads all the rules of a key in one statement. Each line keeps its
  // tenant too, whose chats the alarm wakes (a table of its own would be a row more per shard).
  readonly #lines = new LazyTable(this.ctx.storage.sql, "lines", [
    // The line last: the alarm reads `wake_at` of every row without reading past it into the line.
    `CREATE TABLE IF NOT EXISTS lines (key TEXT NOT NULL, rule TEXT NOT NULL, tenant TEXT NOT NULL, wake_at INTEGER NOT NULL,
      idle INTEGER NOT NULL, updated_at INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (key, rule)) WITHOUT ROWID`,
  ]);
  /** Lines stored, counted once per instance and kept up to date (a count per write would read every row). */
  #count: number | undefined;
  /** When the alarm is set for (null: none), once known: a request that leaves it as it is writes no alarm. */
  #alarmAt: number | null | undefined;

  /**
   * Calls ask for their lines here, in asking order (again, after a wake-up: the same answer for a
   * holder, its place for a waiter): one request for all the calls of a chat that need this shard.
   */
  async ask(
    tenant: string,
    rules: Record<string, { rule: SlotRule; asOf: number }>,
    asks: ShardAsk[],
  ): Promise<ShardAnswer[]> {
    const lines = this.#open(asks.flatMap((a) => a.holds));
    const answers = askLines(lines, rules, asks, Date.now());
    await this.#settle(tenant, lines.changed.values());
    return answers;
  }

  /** Calls give back what they had at these lines: they ended, or they wait at another line. */
  async giveBack(tenant: string, items: { hold: FlowHold; ids: string[] }[]): Promise<void> {
    const lines = this.#open(items.map((i) => i.hold));
    giveBackLines(lines, items, Date.now());
    await this.#settle(tenant, lines.changed.values());
  }

  /** The lines here that run, wait, or still have a spent rate. */
  figures(): LineFigures[] {
    if (!this.#lines.exists()) return [];
    const now = Date.now();
    return this.ctx.storage.sql
      .exec<{ rule: string; key: string; line: string }>(`SELECT rule, key, line FROM lines`)
      .toArray()
      .map((row) => {
        const line = JSON.parse(row.line) as Line;
        return { rule: row.rule, key: row.key, ...figures(line.rule, line.slots, now) };
      });
  }

  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    if (!this.#lines.exists()) return;
    const sql = this.ctx.storage.sql;
    // No index on `wake_at`: each would be one more row written with every line; the alarm reads them all.
    const due = sql
      .exec<{ tenant: string; rule: string; key: string; line: string }>(
        `SELECT tenant, rule, key, line FROM lines WHERE wake_at <= ?`,
        Date.now(),
      )
      .toArray();
    await this.#settle(
      due[0]?.tenant,
      due.map((row) => ({
        hold: { rule: row.rule, key: row.key },
        line: JSON.parse(row.line) as Line,
        created: false,
      })),
    );
    if (!this.#lines.exists()) return;
    const next = sql.exec<{ at: number | null }>(`SELECT MIN(wake_at) AS at FROM lines`).one().at;
    if (next !== null) await this.#alarmBy(next);
  }

  /**
   * The lines of one request, read up front a key at a time (one statement for every rule of a
   * key: rules keyed on the same field bring a call's lines together); the changed ones are settled
   * at its end. Statements are counted because each costs far more than the work on its line.
   */
  #open(holds: readonly FlowHold[]): Lines & { changed: Map<string, Changed> } {
    const seen = new Map<string, Line | undefined>();
    const changed = new Map<string, Changed>();
    if (this.#lines.exists()) {
      for (const key of new Set(holds.map((h) => h.key))) {
        for (const row of this.ctx.storage.sql.exec<{ rule: string; line: string }>(
          `SELECT rule, line FROM lines WHERE key = ?`,
          key,
        )) {
          seen.set(lineId({ rule: row.rule, key }), JSON.parse(row.line) as Line);
        }
      }
    }
    const get = (hold: FlowHold) => seen.get(lineId(hold));
    return {
      changed,
      get,
      set: (hold, line) => {
        const id = lineId(hold);
        const created = changed.get(id)?.created ?? get(hold) === undefined;
        seen.set(id, line);
        changed.set(id, { hold, line, created });
      },
    };
  }

  /**
   * Offers what is free to the next in line, keeps each changed line (or deletes it), wakes the
   * chats, and brings the alarm forward to the soonest kept line's time. A request that changed
   * nothing writes nothing: a waiter asking again costs one read.
   */
  async #settle(tenant: string | undefined, changed: Iterable<Changed>): Promise<void> {
    const now = Date.now();
    const sql = this.ctx.storage.sql;
    const woken = new Set<string>();
    const kept: { row: unknown[]; wakeAt: number }[] = [];
    const gone = new Map<string, string[]>();
    let created = 0;
    for (const { hold, line, created: isNew } of changed) {
      const settled = settleLine(line, now);
      for (const w of settled.woken) woken.add(w.chat);
      if (settled.wakeAt === undefined) {
        if (!isNew) (gone.get(hold.key) ?? gone.set(hold.key, []).get(hold.key)!).push(hold.rule);
        if (!isNew) created--;
        continue;
      }
      const { slots } = settled.line;
      const idle = slots.holders.length + slots.offers.length + slots.waiters.length === 0 ? 1 : 0;
      kept.push({
        row: [hold.key, hold.rule, tenant!, settled.wakeAt, idle, now, JSON.stringify(settled.line)],
        wakeAt: settled.wakeAt,
      });
      if (isNew) created++;
    }
    if (tenant) {
      for (const chat of woken)
        this.ctx.waitUntil(
          this.env.CHAT.getByName(chatName(tenant, chat))
            .flowOffered()
            .catch(() => {}),
        );
    }
    if (kept.length === 0 && gone.size === 0) return;
    if (kept.length && !this.#lines.exists()) {
      this.#lines.create();
      this.#count = 0;
    }
    // SQLite takes at most 100 bound values a statement: 14 lines of 7.
    for (let i = 0; i < kept.length; i += 14) {
      const rows = kept.slice(i, i + 14);
      sql.exec(
        `INSERT OR REPLACE INTO lines (key, rule, tenant, wake_at, idle, updated_at, line)
           VALUES ${rows.map(() => "(?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
        ...rows.flatMap((r) => r.row),
      );
    }
    for (const [key, rules] of gone) {
      for (let i = 0; i < rules.length; i += 99) {
        const some = rules.slice(i, i + 99);
        sql.exec(`DELETE FROM lines WHERE key = ? AND rule IN (${some.map(() => "?").join(", ")})`, key, ...some);
      }
    }
    if (!this.#lines.exists()) return;
    // Counted once per instance, then kept: a count per request would read every row.
    this.#count =
      this.#count === undefined
        ? sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM lines`).one().n
        : this.#count + created;
    if (this.#count > MAX_LINES) this.#forgetIdle();
    if (this.#count === 0) {
      // Nothing is held here any more: the object keeps no storage until a call comes again.
      this.#lines.dropped();
      this.#count = undefined;
      if (await this.#alarm()) await this.ctx.storage.deleteAlarm();
      this.#alarmAt = null;
      await this.ctx.storage.deleteAll();
      return;
    }
    if (kept.length) await this.#alarmBy(Math.min(...kept.map((k) => k.wakeAt)));
  }

  /** Brings the alarm forward to `at` (an alarm that comes early finds nothing due and sets the next). */
  async #alarmBy(at: number): Promise<void> {
    const set = await this.#alarm();
    if (set === null || at < set) {
      await this.ctx.storage.setAlarm(at);
      this.#alarmAt = at;
    }
  }

  /** Past `MAX_LINES`, the lines that hold only a spent rate go, longest idle first (rare: a full scan is fine). */
  #forgetIdle(): void {
    const sql = this.ctx.storage.sql;
    sql.exec(
      // Not the unkeyed rules' lines: new keys of one rule must not hand a tenant-wide rule a fresh burst.
      `DELETE FROM lines WHERE (key, rule) IN (SELECT key, rule FROM lines WHERE idle = 1 AND key != ''
         ORDER BY updated_at LIMIT ?)`,
      this.#count! - MAX_LINES,
    );
    this.#count = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM lines`).one().n;
  }

  /** When the alarm is set for, read once per instance (null, as the alarm runs: none is set). */
  async #alarm(): Promise<number | null> {
    if (this.#alarmAt === undefined) this.#alarmAt = await this.ctx.storage.getAlarm();
    return this.#alarmAt;
  }
}
