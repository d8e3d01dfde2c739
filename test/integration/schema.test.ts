/**
 * Chat schema upgrades run on live data: a chat stored by an older version
 * keeps its timers and undelivered events when it next wakes up.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { ensureSchema } from "../../durable-objects/chat/schema";
import { chatObject } from "../helpers";

afterEach(() => reset());

describe("schema version 7", () => {
  it("keeps a version 6 chat's timers and pending events, now behind the leaner indexes", async () => {
    const result = await runInDurableObject(chatObject("schema-v6"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, 6);
      sql.exec(`INSERT INTO timers (kind, ref, at) VALUES ('deadline', 'job-1', 1000), ('purge', '', 2000)`);
      sql.exec(`INSERT INTO events (id, type, data, created_at, status, next_at) VALUES ('e1', 'job.finished', '{}', 1, 'pending', 500), ('e2', 'job.started', '{}', 1, 'none', NULL)`);
      ensureSchema(sql);
      const indexes = sql.exec(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('timers', 'events') AND sql IS NOT NULL ORDER BY name`).toArray().map((r) => r.name);
      return {
        version: sql.exec(`SELECT value FROM meta WHERE key = 'schema_version'`).one().value,
        timers: sql.exec(`SELECT kind, ref, at FROM timers ORDER BY at`).toArray(),
        due: sql.exec(`SELECT id FROM events WHERE status = 'pending' AND next_at <= 600`).toArray().map((r) => r.id),
        withoutRowid: /WITHOUT ROWID/i.test(String(sql.exec(`SELECT sql FROM sqlite_master WHERE name = 'timers'`).one().sql)),
        indexes,
      };
    });
    expect(result).toEqual({
      version: "7",
      timers: [
        { kind: "deadline", ref: "job-1", at: 1000 },
        { kind: "purge", ref: "", at: 2000 },
      ],
      due: ["e1"],
      withoutRowid: true,
      indexes: ["events_pending", "timers_by_time"],
    });
  });
});
