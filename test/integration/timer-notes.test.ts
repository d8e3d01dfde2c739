/**
 * The chat's shared timers (ref "") keep a note of a time they are known to be due by, so the
 * `setEarliest` every job's claim and end makes costs no statement while the timer is already set;
 * every write keeps the note true or drops it, and what is stored is what it would be without it.
 * The alarm keeps one too (the time it points at), so arming it again for the same time writes nothing.
 */
import { abortAllDurableObjects, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { ensureSchema } from "../../durable-objects/chat/storage/schema";
import { transact } from "../../durable-objects/chat/storage/sql-cache";
import { Timers } from "../../durable-objects/chat/storage/timers";
import { chatObject } from "../helpers";

afterEach(() => reset());

/** Timers over storage whose statements are counted. */
function counted(state: DurableObjectState) {
  const sql = state.storage.sql;
  let statements = 0;
  const exec = sql.exec.bind(sql);
  const view = Object.assign(Object.create(Object.getPrototypeOf(sql)), sql, {
    exec: (query: string, ...bindings: unknown[]) => (statements++, exec(query, ...bindings)),
  }) as SqlStorage;
  const stored = (kind: string) =>
    sql.exec<{ at: number }>(`SELECT at FROM timers WHERE kind = ? AND ref = ''`, kind).toArray()[0]?.at;
  return { timers: new Timers(view, state.storage), view, stored, statements: () => statements };
}

describe("a shared timer's note", () => {
  it("spares the statement when the timer is already due earlier, and never hides a move closer", async () => {
    await runInDurableObject(chatObject("timer-notes"), (_i, state) => {
      ensureSchema(state.storage.sql);
      const { timers, stored, statements } = counted(state);
      timers.setEarliest("exec", "", 10_000);
      const first = statements();
      expect(first).toBe(1);
      timers.setEarliest("exec", "", 12_000); // later: nothing to do, nothing run
      expect(statements()).toBe(first);
      expect(stored("exec")).toBe(10_000);
      timers.setEarliest("exec", "", 8_000); // closer: written
      expect(stored("exec")).toBe(8_000);
      timers.done({ kind: "exec", ref: "", at: 8_000 }); // fired and handled: gone, and so is the note
      timers.setEarliest("exec", "", 20_000);
      expect(stored("exec")).toBe(20_000);
      timers.set("exec", "", 30_000); // moved later on purpose
      timers.setEarliest("exec", "", 25_000);
      expect(stored("exec")).toBe(25_000);
      timers.clear("exec", "");
      timers.setEarliest("exec", "", 40_000);
      expect(stored("exec")).toBe(40_000);
      timers.postpone({ kind: "exec", ref: "", at: 40_000 }, 50_000);
      timers.setEarliest("exec", "", 45_000);
      expect(stored("exec")).toBe(45_000);
    });
  });

  it("is dropped with a transaction that failed, so the rolled-back timer is written again", async () => {
    await runInDurableObject(chatObject("timer-notes-tx"), (_i, state) => {
      ensureSchema(state.storage.sql);
      const { timers, view, stored } = counted(state);
      expect(() =>
        transact(state.storage, view, () => {
          timers.setEarliest("purge", "", 5_000);
          throw new Error("boom");
        }),
      ).toThrow("boom");
      expect(stored("purge")).toBeUndefined();
      timers.setEarliest("purge", "", 6_000);
      expect(stored("purge")).toBe(6_000);
    });
  });

  it("does not outlive a chat's timers being cleared at once", async () => {
    await runInDurableObject(chatObject("timer-notes-all"), (_i, state) => {
      ensureSchema(state.storage.sql);
      const { timers, stored } = counted(state);
      timers.setEarliest("deadline", "", 1_000);
      timers.clearAll();
      timers.setEarliest("deadline", "", 2_000);
      expect(stored("deadline")).toBe(2_000);
    });
  });
});

describe("the alarm's note", () => {
  /** A chat object with one timer, armed through the chat's own storage (the note is keyed by it). */
  async function armedAt(name: string, at: number) {
    await runInDurableObject(chatObject(name), async (_i, state) => {
      ensureSchema(state.storage.sql);
      const timers = new Timers(state.storage.sql, state.storage);
      timers.set("purge", "", at);
      await timers.arm();
    });
  }
  const alarmOf = (name: string) => runInDurableObject(chatObject(name), (_i, state) => state.storage.getAlarm());

  it("spares setAlarm while the alarm points at the earliest timer already", async () => {
    const at = Date.now() + 60_000;
    await armedAt("alarm-note", at);
    const calls = await runInDurableObject(chatObject("alarm-note"), async (_i, state) => {
      let n = 0;
      const storage = Object.assign(Object.create(state.storage), {
        setAlarm: (t: number) => (n++, state.storage.setAlarm(t)),
      });
      const timers = new Timers(state.storage.sql, storage as DurableObjectStorage);
      await timers.arm();
      await timers.arm();
      timers.set("purge", "", at + 1_000); // moved: written once
      await timers.arm();
      await timers.arm();
      return n;
    });
    expect(calls).toBe(1);
    expect(await alarmOf("alarm-note")).toBe(at + 1_000);
  });

  it("is dropped when the alarm fires, so a handler that re-arms for the same time sets it again", async () => {
    // The alarm runs before its timer is due (as a clock a little behind the scheduler's would see it):
    // nothing runs, the handler re-arms for the same time, and workerd would drop an alarm not set again.
    const at = Date.now() + 60_000;
    await armedAt("alarm-note-fired", at);
    expect(await runDurableObjectAlarm(chatObject("alarm-note-fired"))).toBe(true);
    expect(await alarmOf("alarm-note-fired")).toBe(at);
  });

  it("starts from the alarm an instance finds, and repairs one that points past the earliest timer", async () => {
    const at = Date.now() + 60_000;
    await armedAt("alarm-note-found", at);
    // behind the note's back
    await runInDurableObject(chatObject("alarm-note-found"), (_i, state) => state.storage.setAlarm(at + 5_000));
    await abortAllDurableObjects(); // the next instance reads the alarm as it starts
    expect(await alarmOf("alarm-note-found")).toBe(at);
  });
});
