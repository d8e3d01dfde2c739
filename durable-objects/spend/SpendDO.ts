/**
 * A tenant's spending (`spend/<tenant>`, docs/architecture.md#spending-limits): what every chat of the
 * tenant spent this UTC day or month while `limits.spend` is set, counted as the work happens. A call
 * takes its share before it starts; an agent loop asks before each model request and adds what it
 * spent once it answers, so loops running side by side pass the limit only by the requests already
 * in flight when it was reached. Each threshold crossed sends `tenant.spend_alert` once per period,
 * through the chat whose work crossed it (its outbox delivers it); the alarm retries one that chat
 * did not take. By day for 90 days: `GET /v1/usage`.
 */
import { DurableObject } from "cloudflare:workers";
import {
  addSpent,
  askModel,
  type Ledger,
  modelAnswered,
  noneLeft,
  NOTHING_SPENT,
  type Reached,
  type Spent,
  stop,
} from "../../src/core/budgets/budget";
import {
  alertKey,
  alertsDue,
  dayOf,
  periodOf,
  periodStart,
  type SpendAlert,
  spendBudget,
  type SpendLimits,
} from "../../src/core/budgets/spend";
import { chatName } from "../../src/core/objects/names";
import { LazyTable } from "../shared/lazy-table";

export type SpendAnswer = { ok: true } | ({ ok: false } & Reached);

interface Stored extends Ledger {
  tenant: string;
  /** The period `spent` is of (`2026-12-07` or `2026-12`). */
  period: string;
  /** Alerts sent this period (`field@threshold`). */
  alerted: string[];
  /** Alerts whose chat has not recorded them yet: the alarm sends them again. */
  unsent: { chat: string; alert: SpendAlert }[];
  /** When each request in `asking` was let go: one whose turn stopped before it answered is forgotten later. */
  asked_at?: Record<string, number>;
}

/** What `GET /v1/usage` answers. */
export interface TenantUsage {
  period: "day" | "month" | null;
  period_start: string | null;
  limits: Partial<Record<"cost_usd" | "llm_tokens" | "llm_calls" | "tool_calls", number>> | null;
  used: Spent;
  by_day: { date: string; used: Spent }[];
}

const SEND_AGAIN_MS = 5_000;
/**
 * A model request not answered in this long is no longer in flight: its turn stopped (or its chat went)
 * while it was out, and it never will be. Longer than any model request runs.
 */
const ASKING_KEPT_MS = 3_600_000;
const DAYS_KEPT = 90;
/** A call's share is taken once: a gate that asks again within this long (its backup timer) takes nothing. */
const TAKEN_KEPT_MS = 86_400_000;

export class SpendDO extends DurableObject<Env> {
  #stored: Stored | undefined;
  /** Alerts on their way to their chat now: a send started meanwhile does not send them again. */
  readonly #sending = new Set<string>();
  readonly #tables: LazyTable;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#tables = new LazyTable(ctx.storage.sql, "spend", [
      `CREATE TABLE IF NOT EXISTS spend (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS spend_days (day TEXT PRIMARY KEY, spent TEXT NOT NULL) WITHOUT ROWID`,
      `CREATE TABLE IF NOT EXISTS spend_taken (job_id TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID`,
    ]);
  }

  /** Calls of chat `chat` about to start: each takes one tool call of the period, or is refused at the limit. */
  take(tenant: string, limits: SpendLimits, chat: string, jobIds: string[]): SpendAnswer[] {
    const now = Date.now();
    const state = this.#read(tenant, limits, now);
    const budget = spendBudget(limits);
    const before = state.spent;
    const answers = jobIds.map((jobId): SpendAnswer => {
      if (this.#taken(jobId)) return { ok: true };
      const refused = stop(state, noneLeft(budget, state.spent, "tool_calls"));
      if (refused) return { ok: false, ...refused };
      state.spent = addSpent(state.spent, { tool_calls: 1 });
      this.ctx.storage.sql.exec(`INSERT OR IGNORE INTO spend_taken (job_id, at) VALUES (?, ?)`, jobId, now);
      return { ok: true };
    });
    this.#settle(state, limits, chat, before, now);
    return answers;
  }

  /** An agent loop of chat `chat` is about to ask its model for `step`: counted now, or refused at the limit. */
  mayRequest(tenant: string, limits: SpendLimits, chat: string, step: string): SpendAnswer {
    const now = Date.now();
    const state = this.#read(tenant, limits, now);
    const before = state.spent;
    const refused = askModel(spendBudget(limits), state, `${chat} ${step}`);
    if (!refused) state.asked_at = { ...state.asked_at, [`${chat} ${step}`]: now };
    this.#settle(state, limits, chat, before, now);
    return refused ? { ok: false, ...refused } : { ok: true };
  }

  /** What chat `chat`'s request for `step` spent once it answered (nothing when it ended with no answer). */
  answered(tenant: string, limits: SpendLimits, chat: string, step: string, spent: Partial<Spent>): void {
    const now = Date.now();
    const state = this.#read(tenant, limits, now);
    const before = state.spent;
    modelAnswered(spendBudget(limits), state, `${chat} ${step}`, spent);
    delete state.asked_at?.[`${chat} ${step}`];
    this.#settle(state, limits, chat, before, now);
  }

  /** This period's spending and the last 90 days', by day; `limits` null when none is set now. */
  usage(limits: SpendLimits | null): TenantUsage {
    const now = Date.now();
    const days = this.#days(now);
    const period = limits?.period ?? null;
    const key = period ? periodOf(period, now) : null;
    const used = days
      .filter((d) => key !== null && d.date.startsWith(key))
      .reduce((sum, d) => addSpent(sum, d.used), { ...NOTHING_SPENT });
    return {
      period,
      period_start: key ? periodStart(key) : null,
      limits: limits ? spendBudget(limits) : null,
      used,
      by_day: days,
    };
  }

  override async alarm(): Promise<void> {
    const state = this.#load();
    if (state?.unsent.length) await this.#send(state);
  }

  #read(tenant: string, limits: SpendLimits, now: number): Stored {
    const period = periodOf(limits.period, now);
    const state = this.#load() ?? { tenant, period, spent: { ...NOTHING_SPENT }, asking: {}, alerted: [], unsent: [] };
    // A new period starts from nothing; requests still in flight are answered into it.
    if (state.period !== period) {
      state.period = period;
      state.spent = this.#periodSpent(period, now);
      state.alerted = [];
      delete state.reached;
    }
    // A limit raised (or taken away) past what was spent lets calls through again at once.
    const limit = state.reached ? spendBudget(limits)[state.reached.field] : undefined;
    if (state.reached && (limit === undefined || state.spent[state.reached.field] < limit)) delete state.reached;
    for (const [key, at] of Object.entries(state.asked_at ?? {})) {
      if (at > now - ASKING_KEPT_MS) continue;
      delete state.asking?.[key];
      delete state.asked_at![key];
    }
    return state;
  }

  /** What the period spent so far, from the days kept (a limit set mid-month counts the month's days). */
  #periodSpent(period: string, now: number): Spent {
    return this.#days(now)
      .filter((d) => d.date.startsWith(period))
      .reduce((sum, d) => addSpent(sum, d.used), { ...NOTHING_SPENT });
  }

  #taken(jobId: string): boolean {
    this.#tables.create();
    return this.ctx.storage.sql.exec(`SELECT 1 FROM spend_taken WHERE job_id = ?`, jobId).toArray().length > 0;
  }

  /** Keeps the state and today's row; alerts newly due go to the chat whose work crossed them. */
  #settle(state: Stored, limits: SpendLimits, chat: string, before: Spent, now: number): void {
    this.#tables.create();
    const { sql } = this.ctx.storage;
    const delta = Object.fromEntries(
      Object.entries(state.spent).map(([f, v]) => [f, v - before[f as keyof Spent]]),
    ) as Spent;
    if (Object.values(delta).some((v) => v !== 0)) {
      const day = dayOf(now);
      const row = sql.exec<{ spent: string }>(`SELECT spent FROM spend_days WHERE day = ?`, day).toArray()[0];
      const today = addSpent(row ? (JSON.parse(row.spent) as Spent) : { ...NOTHING_SPENT }, delta);
      sql.exec(`INSERT OR REPLACE INTO spend_days (day, spent) VALUES (?, ?)`, day, JSON.stringify(today));
      sql.exec(`DELETE FROM spend_days WHERE day < ?`, dayOf(now - (DAYS_KEPT - 1) * 86_400_000));
      sql.exec(`DELETE FROM spend_taken WHERE at < ?`, now - TAKEN_KEPT_MS);
    }
    const due = alertsDue(limits, state.spent, new Set(state.alerted));
    for (const alert of due) {
      state.alerted.push(alertKey(alert.field, alert.threshold));
      state.unsent.push({ chat, alert });
    }
    sql.exec(`INSERT OR REPLACE INTO spend (id, state) VALUES (1, ?)`, JSON.stringify(state));
    this.#stored = state;
    if (due.length) {
      // The alarm is the backup of the send below, should the object go before it is done.
      this.ctx.waitUntil(this.ctx.storage.setAlarm(now + SEND_AGAIN_MS));
      this.ctx.waitUntil(this.#send(state));
    }
  }

  /** Hands the unsent alerts to their chats; those not taken go again from the alarm. */
  async #send(state: Stored): Promise<void> {
    const key = (u: Stored["unsent"][number]) => `${state.period} ${alertKey(u.alert.field, u.alert.threshold)}`;
    const sending = state.unsent.filter((u) => !this.#sending.has(key(u)));
    for (const u of sending) this.#sending.add(key(u));
    const sent = await Promise.all(
      sending.map(({ chat, alert }) =>
        this.env.CHAT.getByName(chatName(state.tenant, chat))
          .spendAlert(alert, key({ chat, alert }))
          .then(() => true)
          .catch(() => false)
          .finally(() => this.#sending.delete(key({ chat, alert }))),
      ),
    );
    const current = this.#load();
    if (!current) return;
    const delivered = new Set(sending.filter((_, i) => sent[i]).map(key));
    current.unsent = current.unsent.filter((u) => !delivered.has(key(u)));
    this.ctx.storage.sql.exec(`INSERT OR REPLACE INTO spend (id, state) VALUES (1, ?)`, JSON.stringify(current));
    this.#stored = current;
    if (current.unsent.length) await this.ctx.storage.setAlarm(Date.now() + SEND_AGAIN_MS);
  }

  #days(now: number): { date: string; used: Spent }[] {
    if (!this.#tables.exists()) return [];
    return this.ctx.storage.sql
      .exec<{ day: string; spent: string }>(
        `SELECT day, spent FROM spend_days WHERE day >= ? ORDER BY day`,
        dayOf(now - (DAYS_KEPT - 1) * 86_400_000),
      )
      .toArray()
      .map((r) => ({ date: r.day, used: JSON.parse(r.spent) as Spent }));
  }

  #load(): Stored | undefined {
    if (this.#stored) return this.#stored;
    if (!this.#tables.exists()) return undefined;
    const row = this.ctx.storage.sql.exec<{ state: string }>(`SELECT state FROM spend WHERE id = 1`).toArray()[0];
    this.#stored = row ? (JSON.parse(row.state) as Stored) : undefined;
    return this.#stored;
  }
}
