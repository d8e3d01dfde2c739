/**
 * Bytes the Durable Objects of a `wrangler dev --persist-to` directory hold,
 * per class: every object's SQLite database (with its WAL) measured with
 * SQLite's own `dbstat`, counting used bytes only, as storage is billed.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const CLASSES = ["ChatDO", "TenantDO"];

/**
 * The event log is bounded per chat (docs/api.md#events-and-webhooks: 24 h, the last 1000), not per job:
 * counted apart.
 */
const EVENT_TABLES = "name = 'events' OR name LIKE 'events\\_%' ESCAPE '\\'";

function usedBytes(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db
      .prepare(
        `SELECT COALESCE(SUM(pgsize - unused), 0) AS used, COALESCE(SUM(CASE WHEN ${EVENT_TABLES} THEN pgsize - unused END), 0) AS events FROM dbstat`,
      )
      .get();
    return { bytes: Number(row.used), eventBytes: Number(row.events) };
  } finally {
    db.close();
  }
}

/** `{ ChatDO: { objects, bytes }, … }` for the fanout worker's objects under `state`. */
export function storageByClass(state) {
  const out = {};
  for (const cls of CLASSES) {
    const dir = join(state, "v3/do", `fanout-${cls}`);
    const files = existsSync(dir)
      ? readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")
      : [];
    const sum = { objects: files.length, bytes: 0, eventBytes: 0 };
    for (const f of files) {
      try {
        const used = usedBytes(join(dir, f));
        sum.bytes += used.bytes;
        sum.eventBytes += used.eventBytes;
      } catch {} // an object deleted while we looked
    }
    out[cls] = sum;
  }
  return out;
}

export const totalBytes = (byClass) => Object.values(byClass).reduce((sum, c) => sum + c.bytes, 0);
export const eventBytes = (byClass) => Object.values(byClass).reduce((sum, c) => sum + c.eventBytes, 0);
