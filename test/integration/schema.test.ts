/**
 * Chat schema upgrades run on live data: a chat stored by an older version
 * keeps its timers and undelivered events when it next wakes up.
 */
import { abortAllDurableObjects, reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { ensureSchema, readLimits, readMeta, writeMeta } from "../../durable-objects/chat/storage/schema";
import { transact } from "../../durable-objects/chat/storage/sql-cache";
import { Events } from "../../durable-objects/chat/storage/events";
import { call, chatObject, configure, jobInState, parallel, toolCalls } from "../helpers";

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
      version: "10",
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

describe("schema version 8", () => {
  it("treats calls that were running in a runner object as maybe sent, and recovers them at once", async () => {
    await configure();
    const { body } = await parallel("schema-v7", { tool_calls: [call("echo", { done: 1 })] });
    const seed = body.jobs[0];
    // A version 7 chat: one read-only and one side-effecting call running in runners that are gone.
    await runInDurableObject(chatObject("schema-v7"), (_i, state) => {
      const sql = state.storage.sql;
      sql.exec(`ALTER TABLE jobs DROP COLUMN sent`);
      sql.exec(`ALTER TABLE events DROP COLUMN parent_chat_id`);
      sql.exec(`ALTER TABLE events DROP COLUMN root_chat_id`);
      for (const column of ["tool_call_id", "progress", "content"]) sql.exec(`ALTER TABLE jobs DROP COLUMN ${column}`);
      sql.exec(`ALTER TABLE events DROP COLUMN delivered_at`);
      sql.exec(`UPDATE meta SET value = '7' WHERE key = 'schema_version'`);
      sql.exec(`DELETE FROM timers`);
      const copy = (id: string, tool: string, readOnly: number) =>
        sql.exec(
          `INSERT INTO jobs (job_id, chat_id, batch_id, idx, tool_name, tool_args, kind, state, read_only, timeout_seconds,
             created_at, started_at, attempt, lease, deadline_at)
           VALUES (?, 'schema-v7', 'b-old', ?, ?, '{}', 'tool', 'running', ?, 600, ?, ?, 1, 'lease-old', ?)`,
          id, readOnly, tool, readOnly, Date.now(), Date.now(), Date.now() + 600_000,
        );
      copy("echo-oldreadonly01", "echo", 1);
      copy("hangwrite-oldwrite001", "hang_write", 0);
    });
    await abortAllDurableObjects(); // the next instance starts on the new code
    const read = await jobInState("schema-v7", "echo-oldreadonly01", "success");
    expect(read.attempt).toBe(2);
    const write = await jobInState("schema-v7", "hangwrite-oldwrite001", "error");
    expect(write.error).toBe("Outcome unknown: the tool may have run; not retried.");
    expect(await toolCalls("hangwrite-oldwrite001")).toHaveLength(0);
    expect(seed.state).toBe("success");
  });
});

describe("a new chat's tables", () => {
  it("are created in one step exactly as the migrations from version 1 leave them", async () => {
    const layout = (sql: SqlStorage) =>
      sql
        .exec(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY type, name`)
        .toArray()
        .map((o) => ({
          type: o.type,
          name: o.name,
          table: o.tbl_name,
          // Tables: their columns (ALTER TABLE leaves other SQL text than one CREATE); indexes: their SQL.
          shape:
            o.type === "table"
              ? {
                  columns: sql.exec(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`, o.name).toArray(),
                  withoutRowid: /WITHOUT ROWID/i.test(String(o.sql)),
                  autoincrement: /AUTOINCREMENT/i.test(String(o.sql)),
                }
              : String(o.sql).replace(/\s+/g, " "),
        }));
    const fresh = await runInDurableObject(chatObject("schema-fresh"), (_i, state) => {
      ensureSchema(state.storage.sql);
      return layout(state.storage.sql);
    });
    const migrated = await runInDurableObject(chatObject("schema-migrated"), (_i, state) => {
      ensureSchema(state.storage.sql, 1);
      ensureSchema(state.storage.sql);
      return layout(state.storage.sql);
    });
    expect(fresh.length).toBeGreaterThan(15);
    expect(fresh).toEqual(migrated);
  });
});

describe("the in-memory copy of a chat's meta", () => {
  it("is written through, and dropped when a transaction fails so its rolled-back writes are not served", async () => {
    await runInDurableObject(chatObject("meta-cache"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql);
      writeMeta(sql, "name", "before");
      expect(readMeta(sql, "name")).toBe("before");
      expect(() =>
        transact(state.storage, sql, () => {
          writeMeta(sql, "name", "after");
          throw new Error("boom");
        }),
      ).toThrow("boom");
      expect(readMeta(sql, "name")).toBe("before");
      expect(sql.exec(`SELECT value FROM meta WHERE key = 'name'`).one().value).toBe("before");
      // Parsed limits follow the stored value.
      writeMeta(sql, "limits", JSON.stringify({ max_result_chars: 10 }));
      expect(readLimits(sql)?.max_result_chars).toBe(10);
      writeMeta(sql, "limits", JSON.stringify({ max_result_chars: 20 }));
      expect(readLimits(sql)?.max_result_chars).toBe(20);
    });
  });
});

describe("schema version 9", () => {
  it("keeps only each event's own data, and rebuilds byte for byte the envelope it was announced with", async () => {
    await runInDurableObject(chatObject("schema-v8"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, 8);
      sql.exec(`INSERT INTO meta (key, value) VALUES ('tenant', 'acme'), ('chat_id', 'schema-v8')`);
      const envelope = JSON.stringify({
        id: "evt_old",
        type: "job.finished",
        timestamp: new Date(1000).toISOString(),
        data: { tenant: "acme", chat_id: "schema-v8", parent_chat_id: "p-1", root_chat_id: "r-1", seq: 1, job_id: "echo-1", result: "ok ü", usage: { n: 1.5 } },
      });
      sql.exec(`INSERT INTO events (seq, id, type, data, created_at, status, next_at) VALUES (1, 'evt_old', 'job.finished', ?, 1000, 'pending', 1000)`, envelope);
      ensureSchema(sql);
      expect(JSON.parse(String(sql.exec(`SELECT data FROM events`).one().data))).toEqual({ job_id: "echo-1", result: "ok ü", usage: { n: 1.5 } });
      const events = new Events(sql);
      expect(events.after(0, 10)[0]!.body).toBe(envelope);
      expect(events.due(2000, 10)[0]!.body).toBe(envelope);
      // A new event: its row holds its own data only; the stream and a retry read the envelope it was announced with,
      // also after the chat became somebody's child (a client may use a child's id before its turn arrives).
      const { envelope: announced, seq } = events.record("chat.idle", {}, 5000);
      expect(sql.exec(`SELECT data, parent_chat_id, root_chat_id FROM events WHERE seq = ?`, seq).one()).toEqual({ data: "{}", parent_chat_id: null, root_chat_id: null });
      writeMeta(sql, "parent_chat_id", "later-parent");
      writeMeta(sql, "root_chat_id", "later-root");
      expect(events.after(1, 10)[0]!.body).toBe(announced);
      expect(JSON.parse(announced).data).toMatchObject({ parent_chat_id: null, root_chat_id: "schema-v8" });
    });
  });
});
