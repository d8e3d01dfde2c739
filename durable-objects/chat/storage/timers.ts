/**
 * The `timers` table behind the chat's single alarm. Every duty that must
 * happen later (a deadline, a finished `wait`, a dispatch watchdog, a purge) is
 * one row keyed by (kind, ref); setting a timer again moves it, so handlers can
 * be re-run after a crash without piling up duplicates.
 */
import { ACTIVE } from "./job-columns";
import { forget, isRemembered, peek, remember } from "./sql-cache";
const TIMER_KINDS = [
  "deadline",
  "wait_done",
  "dispatch",
  "exec",
  "register",
  "purge",
  "agent",
  "report",
  "idle",
  "gate",
  "deliver",
  "delete",
] as const;
export type TimerKind = (typeof TIMER_KINDS)[number];

/**
 * The timers that watch active jobs: the deadlines, the dispatch watchdog, the heartbeat. A chat
 * that went quiet would be woken by them once its last job had ended, to find nothing to watch (an
 * alarm is a billed request, and for a chat evicted meanwhile a restart). So when the last job ends
 * in a chat that was quiet before this batch (or whose instance has no record of it: new, restarted,
 * or after a failed transaction), its watches are parked: they stay where they are and the alarm is
 * not pointed at them while no job is active. The next admission deletes those that came due
 * (`unparkJobWatches`). A chat whose batches follow each other within a heartbeat keeps them
 * armed: moving its alarm away and back with every batch costs more than the alarm it spares.
 */
export const JOB_WATCH = ["deadline", "dispatch", "exec"] as const satisfies readonly TimerKind[];
const WATCH_KINDS = JOB_WATCH.map((kind) => `'${kind}'`).join(", ");
const ANY_ACTIVE = `EXISTS (SELECT 1 FROM jobs WHERE ${ACTIVE})`;

/** How often a chat with calls in flight checks that each still has a live execution (the `exec` timer). */
export const EXEC_HEARTBEAT_MS = 10_000;

/** A chat idle at least a heartbeat before its latest batch parks its watches when that batch ends. */
export const PARK_AFTER_IDLE_MS = EXEC_HEARTBEAT_MS;

/**
 * In memory (`./sql-cache`), this instance only: whether the watches are parked (unknown after a
 * restart: the alarm then counts them only while a job is active, and the next admission checks),
 * when the chat last went idle, and how long it was idle before its latest batch.
 */
const PARKED = "timers:parked";
const IDLE_SINCE = "timers:idle-since";
const IDLE_BEFORE = "timers:idle-before";
/**
 * In memory too: the time the object's alarm points at (null for none), as this instance last set
 * or found it. Only `arm` sets the alarm; a fired alarm, a failed transaction and a deleted chat drop the note.
 */
const ALARM = "timers:alarm";

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
      `INSERT INTO timers (kind, ref, at) VALUES (?, ?, ?) ON CONFLICT (kind, ref) DO UPDATE
         SET at = excluded.at WHERE excluded.at != timers.at`,
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
      `INSERT INTO timers (kind, ref, at) VALUES (?, ?, ?) ON CONFLICT (kind, ref) DO UPDATE
         SET at = excluded.at WHERE excluded.at < timers.at`,
      kind,
      ref,
      at,
    );
    // Whether it wrote or found an earlier time, the timer is now due by `at`.
    if (ref === "") remember(this.sql, dueBy(kind), at);
  }

  /** Clears the timer only while it is due after `at` (one set due meanwhile stays). */
  clearIfLater(kind: TimerKind, ref: string, at: number): void {
    this.sql.exec(`DELETE FROM timers WHERE kind = ? AND ref = ? AND at > ?`, kind, ref, at);
    if (ref === "") forget(this.sql, dueBy(kind));
  }

  clear(kind: TimerKind, ref: string): void {
    this.sql.exec(`DELETE FROM timers WHERE kind = ? AND ref = ?`, kind, ref);
    if (ref === "") forget(this.sql, dueBy(kind));
  }

  /** The chat's last active job ended: its job watches are parked unless it is known to be busy (see JOB_WATCH). */
  chatWentIdle(now: number): void {
    remember(this.sql, IDLE_SINCE, now);
    const idleBefore = peek<number>(this.sql, IDLE_BEFORE);
    if (idleBefore === undefined || idleBefore >= PARK_AFTER_IDLE_MS) remember(this.sql, PARKED, true);
  }

  /**
   * Before a batch is admitted: parked job watches due by now go, so the new jobs set their own
   * (`setEarliest` keeps an earlier time, and one in the past would fire the alarm at once). Those
   * still ahead stay: the heartbeat or watchdog one of them runs a few seconds into the new batch
   * usually finds its jobs claimed and does nothing, which costs less than the rows of moving it
   * (billable-ops: 6.25 → 6.33 rows per job when the next 15 s were moved too). The statement
   * checks that no job is active (only then can a watch be parked); none runs while the watches
   * are known to be armed.
   */
  unparkJobWatches(now: number): void {
    const idleSince = peek<number>(this.sql, IDLE_SINCE);
    if (idleSince !== undefined) {
      remember(this.sql, IDLE_BEFORE, now - idleSince);
      forget(this.sql, IDLE_SINCE);
    }
    if (peek<boolean>(this.sql, PARKED) === false) return;
    const removed = this.sql.exec(
      `DELETE FROM timers WHERE ref = '' AND kind IN (${WATCH_KINDS}) AND at <= ? AND NOT ${ANY_ACTIVE}`,
      now,
    );
    if (removed.rowsWritten > 0) for (const kind of JOB_WATCH) forget(this.sql, dueBy(kind));
    remember(this.sql, PARKED, false);
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
    this.sql.exec(
      `UPDATE timers SET at = ? WHERE kind = ? AND ref = ? AND at = ?`,
      at,
      timer.kind,
      timer.ref,
      timer.at,
    );
    if (timer.ref === "") forget(this.sql, dueBy(timer.kind));
  }

  /** Removes a handled timer, unless its handler moved it to a new time. */
  done(timer: Timer): void {
    this.sql.exec(`DELETE FROM timers WHERE kind = ? AND ref = ? AND at = ?`, timer.kind, timer.ref, timer.at);
    if (timer.ref === "") forget(this.sql, dueBy(timer.kind));
  }

  /**
   * The earliest timer the alarm can be set for (see LATEST_ALARM_AT); job watches only while they may not be
   * parked (see JOB_WATCH).
   */
  next(): number | undefined {
    const armed = peek<boolean>(this.sql, PARKED) === false;
    const row = this.sql
      .exec<{ at: number | null }>(
        armed
          ? `SELECT MIN(at) AS at FROM timers WHERE at <= ?`
          : `SELECT MIN(at) AS at FROM timers WHERE at <= ? AND (kind NOT IN (${WATCH_KINDS}) OR ${ANY_ACTIVE})`,
        LATEST_ALARM_AT,
      )
      .one();
    return row.at ?? undefined;
  }

  /**
   * Points the object's one alarm at the earliest timer (or clears it), unless it is known to point
   * there already: Cloudflare bills every `setAlarm()` as a row written, and a batch of 8 arms about
   * ten times, nearly always for the time the alarm already has (billable-ops: 1.25 rows per job).
   */
  async arm(): Promise<void> {
    const at = this.next() ?? null;
    if (isRemembered(this.sql, ALARM) && peek<number | null>(this.sql, ALARM) === at) return;
    // Noted before the await, so an arm that runs meanwhile compares with what is being written.
    remember(this.sql, ALARM, at);
    try {
      if (at === null) await this.storage.deleteAlarm();
      else await this.storage.setAlarm(at);
    } catch (e) {
      forget(this.sql, ALARM);
      throw e;
    }
  }

  /** What the alarm was found pointing at (an instance starting); null for none. */
  alarmFound(at: number | null): void {
    remember(this.sql, ALARM, at);
  }

  /**
   * What was noted no longer holds: the alarm fired (workerd drops it once the handler returns unless
   * it is set again, even for the same time), or it is being deleted with the chat.
   */
  forgetAlarm(): void {
    forget(this.sql, ALARM);
  }
}
