/**
 * What the tenant's span exports came to (docs/api.md#traces): spans accepted by its endpoint,
 * spans dropped, the latest failure and the latest export. The exporting invocations report
 * here in groups (`src/core/telemetry/exporter.ts`); `GET /v1/telemetry` reads it. One row, made on
 * the first report: a tenant without telemetry has none.
 */
import type { ExportTally } from "../../src/core/telemetry/exporter";
import { LazyTable } from "../shared/lazy-table";

/** What `GET /v1/telemetry` answers. */
export interface TelemetryStatus {
  exported: number;
  dropped: number;
  last_error?: string;
  /** ISO 8601. */
  last_export_at?: string;
}

type Row = { exported: number; dropped: number; last_error: string | null; last_export_at: number | null };

export class TelemetryCounts {
  readonly #table: LazyTable;

  constructor(private readonly sql: SqlStorage) {
    this.#table = new LazyTable(sql, "telemetry_counts", [
      `CREATE TABLE IF NOT EXISTS telemetry_counts (id INTEGER PRIMARY KEY CHECK (id = 1), exported INTEGER NOT NULL,
         dropped INTEGER NOT NULL, last_error TEXT, last_export_at INTEGER)`,
    ]);
  }

  add(tally: ExportTally): void {
    this.#table.create();
    this.sql.exec(
      `INSERT INTO telemetry_counts (id, exported, dropped, last_error, last_export_at) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET exported = exported + excluded.exported, dropped = dropped + excluded.dropped,
         last_error = COALESCE(excluded.last_error, last_error),
         last_export_at = MAX(COALESCE(excluded.last_export_at, 0), COALESCE(last_export_at, 0))`,
      tally.exported,
      tally.dropped,
      tally.last_error ?? null,
      tally.last_export_at ?? null,
    );
  }

  status(): TelemetryStatus {
    const row = this.#table.exists()
      ? this.sql.exec<Row>(`SELECT exported, dropped, last_error, last_export_at FROM telemetry_counts`).toArray()[0]
      : undefined;
    if (!row) return { exported: 0, dropped: 0 };
    return {
      exported: row.exported,
      dropped: row.dropped,
      ...(row.last_error ? { last_error: row.last_error } : {}),
      ...(row.last_export_at ? { last_export_at: new Date(row.last_export_at).toISOString() } : {}),
    };
  }
}
