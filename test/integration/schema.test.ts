/**
 * A chat's tables: one base schema at version 1, created on the first write and
 * never rebuilt, its version kept in `meta`, then each migration once; and the
 * path such a migration takes, on live data.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import {
  createTable,
  ensureSchema,
  FIRST_USE,
  hasSchema,
  hasTable,
  MIGRATIONS,
  readLimits,
  readMeta,
  SCHEMA_VERSION,
  writeMeta,
} from "../../durable-objects/chat/storage/schema";
import { Children } from "../../durable-objects/chat/storage/children";
import { Idempotency } from "../../durable-objects/chat/storage/idempotency";
import { Notifications } from "../../durable-objects/chat/storage/notifications";
import { TreeSlots } from "../../durable-objects/chat/storage/tree-slots";
import { Turns } from "../../durable-objects/chat/storage/turns";
import { forgetCached, transact } from "../../durable-objects/chat/storage/sql-cache";
import { BatchRows } from "../../durable-objects/chat/storage/batch-rows";
import { Events, EVENT_TTL_MS } from "../../durable-objects/chat/storage/events";
import { LogStore } from "../../durable-objects/chat/storage/log-rows";
import { chatObject } from "../helpers";

afterEach(() => reset());

const version = (sql: SqlStorage) => sql.exec(`SELECT value FROM meta WHERE key = 'schema_version'`).one().value;

/**
 * The same storage seen as a new instance would see it (the in-memory cache is keyed by the
 * `SqlStorage` object, so this one starts empty), recording every statement it is given.
 */
function freshView(sql: SqlStorage): { sql: SqlStorage; statements: string[] } {
  const statements: string[] = [];
  const view = {
    exec: (query: string, ...bindings: unknown[]) => {
      statements.push(query.replace(/\s+/g, " ").trim());
      return sql.exec(query, ...bindings);
    },
  };
  return { sql: view as unknown as SqlStorage, statements };
}

const addJob = (sql: SqlStorage, id: string) =>
  sql.exec(
    `INSERT INTO jobs (job_id, chat_id, batch_id, idx, tool_name, tool_args, kind, state, read_only, timeout_seconds, created_at, deadline_at)
     VALUES (?, 'c', 'b', 0, 'echo', '{}', 'tool', 'pending', 1, 600, 1, 600001)`,
    id,
  );

describe("a new chat's tables", () => {
  it("do not exist before the first write, then are all created at the latest version", async () => {
    const result = await runInDurableObject(chatObject("schema-fresh"), (_i, state) => {
      const sql = state.storage.sql;
      // A read of a chat that never existed leaves no storage behind (docs/api.md#authentication-tenants-and-chats).
      const before = hasSchema(sql);
      const tablesBefore = sql.exec(`SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'jobs'`).one().n;
      ensureSchema(sql);
      const names = (type: string) =>
        sql
          .exec(
            `SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name`,
            type,
          )
          .toArray()
          .map((r) => r.name);
      const definition = (name: string) =>
        String(sql.exec(`SELECT sql FROM sqlite_master WHERE name = ?`, name).one().sql);
      return {
        before,
        tablesBefore,
        after: hasSchema(sql),
        version: version(sql),
        tables: names("table"),
        indexes: names("index"),
        timersWithoutRowid: /WITHOUT ROWID/i.test(definition("timers")),
        metaWithoutRowid: /WITHOUT ROWID/i.test(definition("meta")),
        pendingOnly: /WHERE status = 'pending'/.test(definition("events_pending")),
        runnerColumns: sql
          .exec(`SELECT name FROM pragma_table_info('jobs') WHERE name IN ('lane', 'runner')`)
          .toArray(),
      };
    });
    expect(result).toEqual({
      before: false,
      tablesBefore: 0,
      after: true,
      version: String(SCHEMA_VERSION),
      // v5: the tables of features most chats never use come with their first write (FIRST_USE).
      tables: ["batches", "events", "jobs", "meta", "timers"],
      // v3: only active jobs are indexed by time; log rows are read off the jobs.
      indexes: ["events_pending", "jobs_active", "jobs_by_batch", "timers_by_time"],
      // Timers are written several times per job: no rowid plus a key index (rows written are billed).
      timersWithoutRowid: true,
      // v5: and so is meta, written with every new chat.
      metaWithoutRowid: true,
      // Most events never wait for delivery: they get no index row.
      pendingOnly: true,
      // v2's call lane a running call was handed to, called `runner` since v12.
      runnerColumns: [{ name: "runner" }],
    });
  });
});

describe("the tables a chat creates on first use", () => {
  it("read as empty in a chat without them, which creates none, and the first write creates only its own", async () => {
    const result = await runInDurableObject(chatObject("schema-first-use"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql);
      const tables = () => sql.exec(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'`).one().n;
      const before = tables();
      const idempotency = new Idempotency(sql);
      const turns = new Turns(sql);
      const reads = {
        replay: idempotency.find("parallel", { key: "k", fingerprint: "f" }),
        keys: idempotency.count(),
        oldestKey: idempotency.oldestAfter(0),
        children: new Children(sql).all(),
        continued: new Children(sql).latestDefault(),
        holders: new TreeSlots(sql).holders(0),
        running: turns.hasRunning(),
        idleSince: turns.idleSince(),
        awaiting: turns.awaitingAny(["job-1"]),
        messages: turns.messages(),
        pendingMessages: new Notifications(sql).pendingCount(),
        dueMessages: new Notifications(sql).due(0, 10),
      };
      // Changes to what is not there change nothing, and create nothing either.
      idempotency.purge(Date.now(), () => true);
      new Children(sql).remove("ctx-1");
      new TreeSlots(sql).release(["job-1"]);
      new TreeSlots(sql).insert([], 1);
      turns.update("job-1", { state: "done" });
      new Notifications(sql).purge(Date.now());
      const untouched = tables() === before;
      idempotency.record(
        "parallel",
        { key: "k", fingerprint: "f" },
        { job_ids: ["job-1"], shape: { wait: true, wait_seconds: 0, started_only: false, collect: true } },
        1,
      );
      return {
        reads,
        untouched,
        created: FIRST_USE.filter((table) => hasTable(sql, table)),
        replay: idempotency.find("parallel", { key: "k", fingerprint: "f" })?.job_ids,
      };
    });
    expect(result.reads).toEqual({
      replay: undefined,
      keys: 0,
      oldestKey: undefined,
      children: [],
      continued: undefined,
      holders: [],
      running: false,
      idleSince: undefined,
      awaiting: [],
      messages: [],
      pendingMessages: 0,
      dueMessages: [],
    });
    expect(result.untouched).toBe(true);
    expect(result.created).toEqual(["idempotency"]);
    expect(result.replay).toEqual(["job-1"]);
  });

  it("is not left noted as created by a transaction that rolled back", async () => {
    await runInDurableObject(chatObject("schema-first-use-tx"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql);
      const slots = new TreeSlots(sql);
      expect(() =>
        transact(state.storage, sql, () => {
          slots.insert(["job-1"], 10);
          throw new Error("boom");
        }),
      ).toThrow("boom");
      expect(hasTable(sql, "tree_slots")).toBe(false);
      slots.insert(["job-2"], 10); // created again, not written to a table that is gone
      expect(slots.holders(0)).toEqual(["job-2"]);
    });
  });
});

describe("ensureSchema on a chat that has its tables", () => {
  it("is idempotent and keeps the chat's data, also when a new instance runs it", async () => {
    await runInDurableObject(chatObject("schema-idempotent"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql);
      addJob(sql, "echo-kept");
      sql.exec(`INSERT INTO timers (kind, ref, at) VALUES ('deadline', 'echo-kept', 600001)`);
      writeMeta(sql, "tenant", "acme");
      ensureSchema(sql);
      forgetCached(sql); // as after an eviction: nothing remembered, only what SQLite holds
      ensureSchema(sql);
      expect(version(sql)).toBe(String(SCHEMA_VERSION));
      expect(sql.exec(`SELECT job_id FROM jobs`).toArray()).toEqual([{ job_id: "echo-kept" }]);
      expect(sql.exec(`SELECT kind, ref, at FROM timers`).toArray()).toEqual([
        { kind: "deadline", ref: "echo-kept", at: 600001 },
      ]);
      expect(readMeta(sql, "tenant")).toBe("acme");
    });
  });

  it("does not rebuild a chat at the current version: a new instance reads its version once, then nothing", async () => {
    const statements = await runInDurableObject(chatObject("schema-current"), (_i, state) => {
      ensureSchema(state.storage.sql);
      // ensureSchema runs on every write path: once it knows, it must cost no statement at all.
      const view = freshView(state.storage.sql);
      ensureSchema(view.sql);
      const first = [...view.statements];
      ensureSchema(view.sql);
      return { first, second: view.statements.slice(first.length) };
    });
    expect(statements.first.length).toBeGreaterThan(0);
    expect(statements.first.every((s) => s.startsWith("SELECT"))).toBe(true);
    expect(statements.second).toEqual([]);
  });
});

/** A chat's tables as SQLite sees them: columns, keys, indexes and their conditions, not the SQL's spelling. */
function tablesOf(sql: SqlStorage) {
  const objects = sql
    .exec<{ type: string; name: string; tbl_name: string; sql: string | null }>(
      `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name`,
    )
    .toArray();
  return objects.map((o) =>
    o.type === "table"
      ? {
          table: o.name,
          columns: sql.exec(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`, o.name).toArray(),
          withoutRowid: /WITHOUT ROWID\s*$/i.test(o.sql ?? ""),
          autoincrement: /AUTOINCREMENT/i.test(o.sql ?? ""),
        }
      : {
          index: o.name,
          on: o.tbl_name,
          columns: sql.exec(`SELECT name FROM pragma_index_info(?)`, o.name).toArray(),
          where: (o.sql ?? "").replace(/\s+/g, " ").split(/ WHERE /i)[1] ?? null,
        },
  );
}

describe("a new chat's tables in one step", () => {
  it("are the tables a chat stored at v1 has after every step", async () => {
    const stepped = await runInDurableObject(chatObject("schema-stepped"), (_i, state) => {
      ensureSchema(state.storage.sql, []); // stored at v1
      forgetCached(state.storage.sql);
      ensureSchema(state.storage.sql);
      return { version: version(state.storage.sql), tables: tablesOf(state.storage.sql) };
    });
    const fresh = await runInDurableObject(chatObject("schema-fresh"), (_i, state) => {
      const view = freshView(state.storage.sql);
      ensureSchema(view.sql);
      const statements = view.statements.length;
      for (const table of FIRST_USE) createTable(state.storage.sql, table); // as each feature's first write makes them
      return { version: version(state.storage.sql), tables: tablesOf(state.storage.sql), statements };
    });
    expect(fresh.version).toBe(String(SCHEMA_VERSION));
    expect(stepped.version).toBe(String(SCHEMA_VERSION));
    expect(fresh.tables).toEqual(stepped.tables);
    expect(fresh.tables.map((t) => ("table" in t ? t.table : t.index))).toContain("jobs_active");
    // The point of it: a new chat's first write does not run every step's DDL.
    expect(fresh.statements).toBeLessThanOrEqual(14);
  });
});

describe("the step to v2 (call lanes)", () => {
  it("gives a chat stored at v1 the `lane` column, its jobs running in the chat", async () => {
    await runInDurableObject(chatObject("schema-v2"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, []); // a chat stored by the version before call lanes
      addJob(sql, "echo-v1");
      expect(sql.exec(`SELECT COUNT(*) AS n FROM pragma_table_info('jobs') WHERE name = 'lane'`).one().n).toBe(0);
      forgetCached(sql);
      ensureSchema(sql, MIGRATIONS.slice(0, 1));
      expect(version(sql)).toBe("2");
      expect(sql.exec(`SELECT job_id, lane FROM jobs`).toArray()).toEqual([{ job_id: "echo-v1", lane: null }]);
    });
  });
});

describe("the step to v12 (a running call's `lane` is its `runner`)", () => {
  it("renames the column in place, keeping what each job's column held", async () => {
    await runInDurableObject(chatObject("schema-v12"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, MIGRATIONS.slice(0, 10)); // a chat stored at v11
      addJob(sql, "echo-v11");
      sql.exec(`UPDATE jobs SET state = 'running', lane = -1, renewed_at = 5 WHERE job_id = 'echo-v11'`);
      forgetCached(sql);
      ensureSchema(sql, MIGRATIONS.slice(0, 11));
      expect(version(sql)).toBe("12");
      expect(sql.exec(`SELECT job_id, runner, renewed_at FROM jobs`).toArray()).toEqual([
        { job_id: "echo-v11", runner: -1, renewed_at: 5 },
      ]);
      expect(sql.exec(`SELECT COUNT(*) AS n FROM pragma_table_info('jobs') WHERE name = 'lane'`).one().n).toBe(0);
    });
  });
});

describe("the step to v3 (log rows read off the jobs)", () => {
  it("moves each stored log row's id and type onto its job and drops the table, so the log reads the same", async () => {
    await runInDurableObject(chatObject("schema-v3"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, MIGRATIONS.slice(0, 1)); // a chat stored at v2
      addJob(sql, "echo-v2");
      sql.exec(
        `INSERT INTO log (id, job_id, type, heading, kvps, content, created_at, updated_at) VALUES ('log-abc', 'echo-v2', 'mcp', ?, '{}', '', 1, 1)`,
        "Using tool 'echo'",
      );
      // Two events given out, the newest purged: the next must still be 3.
      for (const seq of [1, 2])
        sql.exec(`INSERT INTO events (seq, type, data, created_at) VALUES (?, 'chat.idle', '{}', 1)`, seq);
      sql.exec(`DELETE FROM events WHERE seq = 2`);
      forgetCached(sql);
      ensureSchema(sql, MIGRATIONS.slice(0, 2));
      expect(version(sql)).toBe("3");
      expect(readMeta(sql, "events_seq")).toBe("2");
      expect(
        sql.exec(`SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'events' AND sql LIKE '%AUTOINCREMENT%'`).one()
          .n,
      ).toBe(0);
      expect(sql.exec(`SELECT log_id, log_type FROM jobs`).toArray()).toEqual([{ log_id: "log-abc", log_type: "mcp" }]);
      expect(sql.exec(`SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN ('log', 'jobs_by_state')`).one().n).toBe(
        0,
      );
      // Read as a chat is read: at the current version (the log reads columns added since).
      ensureSchema(sql, MIGRATIONS);
      expect(new LogStore(sql).all()).toEqual([
        {
          id: "log-abc",
          job_id: "echo-v2",
          type: "mcp",
          heading: "Tool 'echo' has not started yet",
          kvps: {},
          content: "",
          created_at: new Date(1).toISOString(),
          updated_at: new Date(1).toISOString(),
        },
      ]);
    });
  });
});

describe("the step to v4 (jobs keyed by job_id alone, job events on the job row)", () => {
  it("moves every job as it is into a table without rowid, with its two indexes and no other", async () => {
    await runInDurableObject(chatObject("schema-v4"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, MIGRATIONS.slice(0, 2)); // a chat stored at v3
      addJob(sql, "echo-v3");
      sql.exec(
        `UPDATE jobs SET state = 'success', completed_at = 9, result = ?, lane = 2, log_id = 'log-x', log_type = 'tool' WHERE job_id = 'echo-v3'`,
        "r".repeat(20_000),
      );
      const stored = sql.exec(`SELECT * FROM jobs`).one();
      forgetCached(sql);
      ensureSchema(sql, MIGRATIONS.slice(0, 3));
      expect(version(sql)).toBe("4");
      expect(sql.exec(`SELECT sql FROM sqlite_master WHERE name = 'jobs'`).one().sql).toMatch(/WITHOUT ROWID$/);
      const indexes = sql
        .exec<{ name: string }>(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' ORDER BY name`,
        )
        .toArray();
      expect(indexes.map((i) => i.name)).toEqual(["jobs_active", "jobs_by_batch"]);
      const moved = sql.exec(`SELECT * FROM jobs`).one();
      expect(moved).toEqual({
        ...stored,
        started_seq: null,
        started_event: null,
        finished_seq: null,
        finished_event: null,
        finished_cut: null,
      });
    });
  });
});

describe("a later migration", () => {
  // These steps exist only here, after the real ones, to show the path the next schema change takes.
  const addNote = [
    ...MIGRATIONS,
    ["ALTER TABLE jobs ADD COLUMN note TEXT", "UPDATE jobs SET note = 'from ' || job_id"],
  ];
  const indexNote = ["CREATE INDEX jobs_by_note ON jobs (note)"];
  const versionAfter = (n: number) => String(SCHEMA_VERSION + n);

  it("runs once on a chat stored at the version before it, keeping and moving its data", async () => {
    await runInDurableObject(chatObject("schema-step"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql);
      addJob(sql, "echo-old");
      ensureSchema(sql, addNote);
      expect(version(sql)).toBe(versionAfter(1));
      addJob(sql, "echo-new");
      // A new instance on the same code: the step ran already and must not run again (its UPDATE
      // would overwrite the new row's NULL, and its ALTER would fail on the existing column).
      const view = freshView(sql);
      ensureSchema(view.sql, addNote);
      expect(view.statements.filter((s) => !s.startsWith("SELECT"))).toEqual([]);
      expect(sql.exec(`SELECT job_id, note FROM jobs ORDER BY job_id`).toArray()).toEqual([
        { job_id: "echo-new", note: null },
        { job_id: "echo-old", note: "from echo-old" },
      ]);
    });
  });

  it("runs only the steps after a stored chat's version, in order, recording each", async () => {
    const ran = await runInDurableObject(chatObject("schema-steps"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, addNote);
      const view = freshView(sql);
      ensureSchema(view.sql, [...addNote, indexNote]);
      return { version: version(sql), written: view.statements.filter((s) => !s.startsWith("SELECT")) };
    });
    expect(ran).toEqual({
      version: versionAfter(2),
      written: [
        "CREATE INDEX jobs_by_note ON jobs (note)",
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
      ],
    });
  });

  it("gives a new chat the current tables and then the steps after them, in order", async () => {
    const result = await runInDurableObject(chatObject("schema-new-steps"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, [...addNote, indexNote]); // the index needs the column the step before adds
      return {
        version: version(sql),
        note: sql.exec(`SELECT COUNT(*) AS n FROM pragma_table_info('jobs') WHERE name = 'note'`).one().n,
        index: sql.exec(`SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'jobs_by_note'`).one().n,
      };
    });
    expect(result).toEqual({ version: versionAfter(2), note: 1, index: 1 });
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

  it("is read whole by a new instance's first read, one statement however many keys its first turn asks for", async () => {
    await runInDurableObject(chatObject("meta-one-read"), (_i, state) => {
      ensureSchema(state.storage.sql);
      for (const [key, value] of [
        ["tenant", "t"],
        ["chat_id", "c"],
        ["level", "0"],
        ["tools", '["search"]'],
      ] as const)
        writeMeta(state.storage.sql, key, value);
      const { sql, statements } = freshView(state.storage.sql);
      const read = ["tenant", "chat_id", "level", "tools", "parent_chat_id", "tenant"].map((key) => readMeta(sql, key));
      expect(read).toEqual(["t", "c", "0", '["search"]', undefined, "t"]);
      expect(statements).toEqual(["SELECT key, value FROM meta"]);
      // A key that had no row is written through like any other, and nothing is read again.
      writeMeta(sql, "parent_chat_id", "p");
      expect(readMeta(sql, "parent_chat_id")).toBe("p");
      expect(statements.filter((q) => q.startsWith("SELECT"))).toHaveLength(1);
    });
  });

  it("is read again after a migration step wrote meta rows of its own", async () => {
    await runInDurableObject(chatObject("meta-after-step"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, []); // a new chat on the base schema
      expect(readMeta(sql, "step_note")).toBeUndefined();
      ensureSchema(sql, [[`INSERT INTO meta (key, value) VALUES ('step_note', 'written by the step')`]]);
      expect(readMeta(sql, "step_note")).toBe("written by the step");
    });
  });
});

describe("an event row", () => {
  it("keeps only its own data, and is read back as the envelope it was announced with", async () => {
    await runInDurableObject(chatObject("event-row"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql);
      writeMeta(sql, "tenant", "acme");
      writeMeta(sql, "chat_id", "event-row");
      const events = new Events(sql, new BatchRows(sql));
      const { envelope: announced, seq } = events.record("chat.idle", {}, 5000);
      expect(sql.exec(`SELECT data, parent_chat_id, root_chat_id FROM events WHERE seq = ?`, seq).one()).toEqual({
        data: "{}",
        parent_chat_id: null,
        root_chat_id: null,
      });
      // The stream and a retry read the envelope it was announced with, also after the chat became
      // somebody's child (a client may use a child's id before its turn arrives).
      writeMeta(sql, "parent_chat_id", "later-parent");
      writeMeta(sql, "root_chat_id", "later-root");
      expect(events.after(seq - 1, 10, 5000)[0]!.body).toBe(announced);
      expect(JSON.parse(announced).data).toMatchObject({
        tenant: "acme",
        chat_id: "event-row",
        parent_chat_id: null,
        root_chat_id: "event-row",
      });
    });
  });
  it("keeps counting after every event is purged: the next one carries on from the newest seq given out", async () => {
    await runInDurableObject(chatObject("event-seq"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql);
      writeMeta(sql, "tenant", "acme");
      writeMeta(sql, "chat_id", "event-seq");
      const events = new Events(sql, new BatchRows(sql));
      events.record("chat.idle", {}, 1000);
      const { seq } = events.record("chat.idle", {}, 1000);
      events.purge(1000 + EVENT_TTL_MS + 1);
      expect(sql.exec(`SELECT COUNT(*) AS n FROM events`).one().n).toBe(0);
      forgetCached(sql); // a new instance: only what SQLite holds
      expect(new Events(sql, new BatchRows(sql)).record("chat.idle", {}, 2000 + EVENT_TTL_MS).seq).toBe(seq + 1);
    });
  });
});

describe("the step to v5 (meta without a rowid)", () => {
  it("keeps every meta value, keyed by its key alone", async () => {
    await runInDurableObject(chatObject("schema-v5"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, MIGRATIONS.slice(0, 3)); // a chat stored at v4
      writeMeta(sql, "tenant", "acme");
      writeMeta(sql, "limits", JSON.stringify({ max_result_chars: 7 }));
      forgetCached(sql);
      ensureSchema(sql, MIGRATIONS.slice(0, 4));
      expect(version(sql)).toBe("5");
      expect(String(sql.exec(`SELECT sql FROM sqlite_master WHERE name = 'meta'`).one().sql)).toMatch(/WITHOUT ROWID/);
      forgetCached(sql);
      expect(readMeta(sql, "tenant")).toBe("acme");
      expect(readLimits(sql)).toEqual({ max_result_chars: 7 });
      // A stored chat keeps the tables it had: nothing of it is created on first use.
      expect(FIRST_USE.every((table) => hasTable(sql, table))).toBe(true);
    });
  });
});

describe("the step to v6 (one gate for pending jobs)", () => {
  it("turns a held tier call and a queued subordinate into jobs waiting at their gates, and their timers into the gate's", async () => {
    await runInDurableObject(chatObject("schema-v6"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql, MIGRATIONS.slice(0, 4)); // a chat stored at v5
      for (const id of ["held-1", "queued-1", "queued-2", "released-1", "ended-1"]) addJob(sql, id);
      sql.exec(`UPDATE jobs SET held = 1 WHERE job_id IN ('held-1', 'ended-1')`);
      sql.exec(`UPDATE jobs SET queue_seq = 7 WHERE job_id = 'queued-1'`);
      sql.exec(`UPDATE jobs SET queue_seq = 4 WHERE job_id = 'queued-2'`);
      sql.exec(`UPDATE jobs SET state = 'cancelled', completed_at = 5 WHERE job_id = 'ended-1'`);
      sql.exec(
        `INSERT INTO timers (kind, ref, at) VALUES ('start', 'released-1', 10), ('queue', '', 11), ('queue', 'safety', 30011), ('deadline', '', 600001)`,
      );
      forgetCached(sql);
      ensureSchema(sql, MIGRATIONS.slice(0, 5));
      expect(version(sql)).toBe("6");
      const columns = sql
        .exec<{ name: string }>(`SELECT name FROM pragma_table_info('jobs')`)
        .toArray()
        .map((c) => c.name);
      expect(columns).not.toContain("held");
      expect(columns).not.toContain("queue_seq");
      expect(sql.exec(`SELECT job_id, waiting_for, wait_seq FROM jobs ORDER BY job_id`).toArray()).toEqual([
        { job_id: "ended-1", waiting_for: null, wait_seq: null }, // it ended: it waits for nothing
        { job_id: "held-1", waiting_for: "tier", wait_seq: null },
        { job_id: "queued-1", waiting_for: "subagent_slot", wait_seq: 7 },
        { job_id: "queued-2", waiting_for: "subagent_slot", wait_seq: 4 },
        { job_id: "released-1", waiting_for: null, wait_seq: null },
      ]);
      // The released call still to dispatch goes to the watchdog; the subagent queue to its gate.
      expect(sql.exec(`SELECT kind, ref, at FROM timers ORDER BY kind, ref`).toArray()).toEqual([
        { kind: "deadline", ref: "", at: 600001 },
        { kind: "dispatch", ref: "", at: 10 },
        { kind: "gate", ref: "subagent_slot", at: 11 },
        { kind: "gate", ref: "subagent_slot:safety", at: 30011 },
      ]);
    });
  });
});
