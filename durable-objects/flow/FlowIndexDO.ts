/**
 * The busy keys of one flow rule of a tenant (`flowkeys/<tenant>/<rule>`,
 * docs/architecture.md#flow-objects): each key's object reports its figures here when they change,
 * beside the call that changed them (never on its path), and `GET /v1/flow` reads the rule's totals
 * and its busiest keys from here in one request. An idle key is forgotten; past 10,000 keys the
 * longest-idle go first.
 */
import { DurableObject } from "cloudflare:workers";

export interface KeyFigures {
  running: number;
  queued: number;
  /** Starts the key's rate allows at once, when the rule has a rate. */
  available?: number;
}

/** A rule's rate, as the index needs it to bring a key's reported headroom up to now. */
export interface IndexRate {
  limit: number;
  period_seconds: number;
  burst?: number;
}

/** Keys kept per rule at once. */
const MAX_KEYS = 10_000;
/** Keys `GET /v1/flow` lists per rule. */
export const BUSIEST_KEYS = 20;

type Row = { key: string; running: number; queued: number; available: number | null; updated_at: number };

export class FlowIndexDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS keys (key TEXT PRIMARY KEY, running INTEGER NOT NULL, queued INTEGER NOT NULL,
      available INTEGER, updated_at INTEGER NOT NULL) WITHOUT ROWID`);
  }

  /** A key's figures now; `atRest`: nothing runs or waits and its rate has its whole burst, so it is forgotten. */
  report(key: string, figures: KeyFigures, atRest: boolean): void {
    const sql = this.ctx.storage.sql;
    if (atRest) {
      sql.exec(`DELETE FROM keys WHERE key = ?`, key);
      return;
    }
    sql.exec(
      `INSERT OR REPLACE INTO keys (key, running, queued, available, updated_at) VALUES (?, ?, ?, ?, ?)`,
      key, figures.running, figures.queued, figures.available ?? null, Date.now(),
    );
    const count = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM keys`).one().n;
    if (count > MAX_KEYS) sql.exec(`DELETE FROM keys WHERE key IN (SELECT key FROM keys ORDER BY updated_at LIMIT ?)`, count - MAX_KEYS);
  }

  /**
   * The rule's totals over its busy keys, the least rate headroom among them now (a key's reported
   * headroom grows back at the rule's pace), and the busiest keys.
   */
  summary(rate?: IndexRate): { running: number; queued: number; available: number | null; keys: { key: string; running: number; queued: number }[] } {
    const now = Date.now();
    const burst = rate ? (rate.burst ?? rate.limit) : 0;
    const interval = rate ? (rate.period_seconds * 1000) / rate.limit : Infinity;
    const rows = this.ctx.storage.sql.exec<Row>(`SELECT key, running, queued, available, updated_at FROM keys`).toArray();
    let running = 0;
    let queued = 0;
    let available: number | null = null;
    const busy: Row[] = [];
    for (const row of rows) {
      const headroom = rate && row.available !== null ? Math.min(burst, row.available + Math.floor((now - row.updated_at) / interval)) : null;
      if (row.running === 0 && row.queued === 0 && (headroom === null || headroom >= burst)) continue; // at rest by now
      running += row.running;
      queued += row.queued;
      if (headroom !== null) available = available === null ? headroom : Math.min(available, headroom);
      if (row.running + row.queued > 0) busy.push(row);
    }
    busy.sort((a, b) => b.running + b.queued - (a.running + a.queued) || (a.key < b.key ? -1 : 1));
    return { running, queued, available, keys: busy.slice(0, BUSIEST_KEYS).map(({ key, running, queued }) => ({ key, running, queued })) };
  }
}
