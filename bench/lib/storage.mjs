/**
 * Bytes the Durable Objects of a `wrangler dev --persist-to` directory hold,
 * per class: every object's SQLite database (with its WAL) measured with
 * SQLite's own `dbstat`, counting used bytes only, as storage is billed.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const CLASSES = ["ChatDO", "RunnerDO", "TenantDO"];

function usedBytes(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return Number(db.prepare("SELECT COALESCE(SUM(pgsize - unused), 0) AS used FROM dbstat").get().used);
  } finally {
    db.close();
  }
}

/** `{ ChatDO: { objects, bytes }, … }` for the fanout worker's objects under `state`. */
export function storageByClass(state) {
  const out = {};
  for (const cls of CLASSES) {
    const dir = join(state, "v3/do", `fanout-${cls}`);
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite") : [];
    let bytes = 0;
    for (const f of files) {
      try {
        bytes += usedBytes(join(dir, f));
      } catch {} // an object deleted while we looked
    }
    out[cls] = { objects: files.length, bytes };
  }
  return out;
}

export const totalBytes = (byClass) => Object.values(byClass).reduce((sum, c) => sum + c.bytes, 0);
