/**
 * A chat's usage by day (docs/api.md#usage-and-cost), for `GET /v1/chats/{chat}/usage`: what the
 * chat itself did (its model requests, its tool calls, the subagents it started) and that with
 * everything its subagents did, the last 30 UTC days. Nothing is written per job: a day's row takes
 * a model request's usage as it happens and the jobs' when they are purged; until then they are
 * read where they are, so a job costs no row here.
 */
import { addUsage, NO_USAGE, sharesByDay, shownUsage, type Usage } from "../../../src/core/usage/usage";
import type { JobRow } from "../../../src/core/jobs/job";
import { createTable, hasTable } from "./schema";

/** Days kept, today included. */
export const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface ChatUsage {
  chat: Usage;
  subtree: Usage;
  by_day: { date: string; usage: Usage }[];
}

type Shares = { own: Usage; subtree: Usage };

export class UsageDays {
  constructor(private readonly sql: SqlStorage) {}

  /** A model request of this chat (its own work, and its subtree's). */
  modelRequest(now: number, usage: Usage): void {
    this.#add(new Map([[dayOf(now), { own: usage, subtree: usage }]]), now);
  }

  /** Jobs about to be purged: their usage stays with the day each ended. */
  keep(jobs: Pick<JobRow, "usage" | "kind" | "attempt" | "completed_at">[], now: number): void {
    const days = sharesByDay(jobs);
    if (days.size) this.#add(days, now);
  }

  /**
   * The last 30 days, the kept days' rows and the jobs still kept: the chat's own usage, its subtree's, and
   * the subtree's by day, oldest first.
   */
  summary(now: number, jobs: Pick<JobRow, "usage" | "kind" | "attempt" | "completed_at">[]): ChatUsage {
    const since = dayOf(now - (USAGE_DAYS - 1) * DAY_MS);
    const days = new Map<string, Shares>();
    const merge = (day: string, shares: Shares) => {
      const sum = days.get(day);
      days.set(
        day,
        sum ? { own: addUsage(sum.own, shares.own), subtree: addUsage(sum.subtree, shares.subtree) } : shares,
      );
    };
    for (const row of this.#rows(since))
      merge(row.day, { own: JSON.parse(row.own) as Usage, subtree: JSON.parse(row.subtree) as Usage });
    for (const [day, shares] of sharesByDay(jobs)) if (day >= since) merge(day, shares);
    const ordered = [...days].sort(([a], [b]) => (a < b ? -1 : 1));
    return {
      chat: shownUsage(addUsage(NO_USAGE, ...ordered.map(([, d]) => d.own))),
      subtree: shownUsage(addUsage(NO_USAGE, ...ordered.map(([, d]) => d.subtree))),
      by_day: ordered.map(([date, d]) => ({ date, usage: shownUsage(d.subtree) })),
    };
  }

  #rows(since: string) {
    if (!hasTable(this.sql, "usage_days")) return [];
    return this.sql
      .exec<{ day: string; own: string; subtree: string }>(
        `SELECT day, own, subtree FROM usage_days WHERE day >= ?`,
        since,
      )
      .toArray();
  }

  #add(days: Map<string, Shares>, now: number): void {
    createTable(this.sql, "usage_days");
    for (const [day, shares] of days) {
      const row = this.sql
        .exec<{ own: string; subtree: string }>(`SELECT own, subtree FROM usage_days WHERE day = ?`, day)
        .toArray()[0];
      const own = row ? addUsage(JSON.parse(row.own) as Usage, shares.own) : shares.own;
      const subtree = row ? addUsage(JSON.parse(row.subtree) as Usage, shares.subtree) : shares.subtree;
      this.sql.exec(
        `INSERT OR REPLACE INTO usage_days (day, own, subtree) VALUES (?, ?, ?)`,
        day,
        JSON.stringify(own),
        JSON.stringify(subtree),
      );
    }
    this.sql.exec(`DELETE FROM usage_days WHERE day < ?`, dayOf(now - (USAGE_DAYS - 1) * DAY_MS));
  }
}
