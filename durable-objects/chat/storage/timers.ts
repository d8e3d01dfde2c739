/**
 * The `timers` table behind the chat's single alarm. Every duty that must
 * happen later (a deadline, a finished `wait`, a dispatch watchdog, a purge) is
 * one row keyed by (kind, ref); setting a timer again moves it, so handlers can
 * be re-run after a crash without piling up duplicates.
 */
import { forget, peek, remember } from "./sql-cache";
const TIMER_KINDS = ["deadline", "wait_done", "dispatch", "exec", "register", "purge", "agent", "report", "idle", "queue", "deliver", "delete", "start"] as const;
export type TimerKind = (typeof TIMER_KINDS)[number];

/**
 * The in-memory note of a shared timer (ref ""): a time it is known to be due by, kept beside the
 * storage (`./sql-cache`, dropped with a failed transaction). Every write of the timer keeps it
 * true or drops it.
 */
const dueBy = (kind: TimerKind) => `timer:${kind}`;

export type Timer = {
  kind: TimerKind;
  ref: string;
  at: number;
};

/**
 * The latest time the alarm is pointed at. `setAlarm` refuses dates workerd cannot hold (after 2189),
 * and a refused alarm would stop every timer of the chat; the input bounds keep real timers within
 * a year, so a row past this one is left unarmed rather than allowed to stop the others.
 */
export const LATEST_ALARM_AT = Date.UTC(2100, 0, 1);

export class Timers {
  constructor(
    private readonly sql: SqlStorage,
    private readonly storage: DurableObjectStorage,
  ) {}

  /** Sets or moves the timer; setting it to the time it already has writes nothing (rows written are billed). */
  set(kind: TimerKind, ref: string, at: number): void {
    this.sql.exec(
      `INSERT INTO timers (kind, ref, at) VALUES (?, ?, ?) ON CONFLICT (kind, ref) DO UPDATE SET at = excluded.at WHERE excluded.at != timers.at`,
      kind,
      ref,
      at,
    );
    if (ref === "") remember(this.sql, dueBy(kind), at);
  }

  /**
   * Sets the timer unless it is already due earlier: a shared timer only ever moves closer. A
   * shared timer (ref "") known to be due by `at` costs no statement: every job's claim and end
   * asks this of the chat's heartbeat and purge timers, and they are nearly always set already.
   */
  setEarliest(kind: TimerKind, ref: string, at: number): void {
    const known = ref === "" ? peek<number>(this.sql, dueBy(kind)) : undefined;
    if (known !== undefined && known <= at) return;
    this.sql.exec(
      `INSERT INTO timers (kind, ref, at) VALUES (?, ?, ?) ON CONFLICT (kind, ref) DO UPDATE SET at = excluded.at WHERE excluded.at < timers.at`,
      kind,
      ref,
      at,
    );
    // Whether it wrote or found an earlier time, the timer is now due by `at`.
    if (ref === "") remember(this.sql, dueBy(kind), at);
  }

  clear(kind: TimerKind, ref: string): void {
    this.sql.exec(`DELETE FROM timers WHERE kind = ? AND ref = ?`, kind, ref);
    if (ref === "") forget(this.sql, dueBy(kind));
  }

  /** Every timer goes (a chat being deleted): nothing is known of them any more. */
  clearAll(): void {
    this.sql.exec(`DELETE FROM timers`);
    for (const kind of TIMER_KINDS) forget(this.sql, dueBy(kind));
  }

  /** Timers due at `now`, earliest first. They stay until `done()`, so a crashed alarm re-runs them. */
  due(now: number): Timer[] {
    return this.sql.exec<Timer>(`SELECT kind, ref, at FROM timers WHERE at <= ? ORDER BY at`, now).toArray();
  }

  /** Moves a timer whose handler failed to `at`, unless the handler had already moved it. */
  postpone(timer: Timer, at: number): void {
    this.sql.exec(`UPDATE timers SET at = ? WHERE kind = ? AND ref = ? AND at = ?`, at, timer.kind, timer.ref, timer.at);
    if (timer.ref === "") forget(this.sql, dueBy(timer.kind));
  }

  /** Removes a handled timer, unless its handler moved it to a new time. */
  done(timer: Timer): void {
    this.sql.exec(`DELETE FROM timers WHERE kind = ? AND ref = ? AND at = ?`, timer.kind, timer.ref, timer.at);
    if (timer.ref === "") forget(this.sql, dueBy(timer.kind));
  }

  /** The earliest timer the alarm can be set for (see LATEST_ALARM_AT). */
  next(): number | undefined {
    const row = this.sql.exec<{ at: number | null }>(`SELECT MIN(at) AS at FROM timers WHERE at <= ?`, LATEST_ALARM_AT).one();
    return row.at ?? undefined;
  }

  /** Points the object's one alarm at the earliest timer (or clears it). */
  async arm(): Promise<void> {
    const at = this.next();
    if (at === undefined) await this.storage.deleteAlarm();
    else await this.storage.setAlarm(at);
  }
}
