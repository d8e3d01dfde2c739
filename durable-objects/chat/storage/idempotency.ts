/**
 * Idempotency-Key records (docs/api.md#idempotency). Only requests that create jobs are
 * recorded; a replay with the same fingerprint gets the same job ids in the
 * same response shape and starts and collects nothing; a different fingerprint
 * is a 409.
 */
import { quoteName } from "../../../src/core/calls/names";
import { ApiError } from "../../../src/core/http/errors";
import type { ReplayedCall } from "../../../src/core/jobs/tool-call-results";
import { createTable, hasTable } from "./schema";

export interface ReplayShape {
  wait: boolean;
  wait_seconds: number;
  started_only: boolean;
  collect: boolean;
}

export interface IdempotencyRecord {
  job_ids: string[];
  shape: ReplayShape;
  /** `/tool-calls`: every call as first admitted (refusals included). */
  tool_calls?: StoredToolCalls;
}

export interface StoredToolCalls {
  batch_id: string;
  /** Each call's answer without its id and name: the replayed request brings them. */
  calls: ReplayedCall[];
}

export class Idempotency {
  constructor(private readonly sql: SqlStorage) {}

  /** The recorded request for this key, ready to replay; throws 409 when the request differs. */
  find(route: string, key: { key: string; fingerprint: string }): IdempotencyRecord | undefined {
    if (!hasTable(this.sql, "idempotency")) return undefined;
    const row = this.sql
      .exec<{ fingerprint: string; request: string }>(
        `SELECT fingerprint, request FROM idempotency WHERE route = ? AND key = ?`,
        route,
        key.key,
      )
      .toArray()[0];
    if (!row) return undefined;
    if (row.fingerprint !== key.fingerprint) {
      throw new ApiError(
        409,
        "idempotency_conflict",
        `Idempotency-Key '${quoteName(key.key)}' was used with a different request.`,
      );
    }
    const recorded = JSON.parse(row.request) as IdempotencyRecord;
    return { ...recorded, shape: { ...recorded.shape, collect: false } };
  }

  record(route: string, key: { key: string; fingerprint: string }, rec: IdempotencyRecord, now: number): void {
    createTable(this.sql, "idempotency");
    this.sql.exec(
      `INSERT INTO idempotency (route, key, fingerprint, request, job_ids, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
      route,
      key.key,
      key.fingerprint,
      JSON.stringify(rec),
      JSON.stringify(rec.job_ids),
      now,
    );
  }

  /** The oldest record created after `cutoff` (older ones wait for their jobs' purge instead). */
  oldestAfter(cutoff: number): number | undefined {
    if (!hasTable(this.sql, "idempotency")) return undefined;
    return (
      this.sql
        .exec<{ at: number | null }>(`SELECT MIN(created_at) AS at FROM idempotency WHERE created_at > ?`, cutoff)
        .one().at ?? undefined
    );
  }

  count(): number {
    if (!hasTable(this.sql, "idempotency")) return 0;
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM idempotency`).one().n;
  }

  /** Deletes records older than `cutoff` whose jobs are all purged. */
  purge(cutoff: number, jobsGone: (ids: string[]) => boolean): void {
    if (!hasTable(this.sql, "idempotency")) return;
    const rows = this.sql
      .exec<{ route: string; key: string; job_ids: string }>(
        `SELECT route, key, job_ids FROM idempotency WHERE created_at <= ?`,
        cutoff,
      )
      .toArray();
    for (const row of rows) {
      if (jobsGone(JSON.parse(row.job_ids) as string[])) {
        this.sql.exec(`DELETE FROM idempotency WHERE route = ? AND key = ?`, row.route, row.key);
      }
    }
  }
}
