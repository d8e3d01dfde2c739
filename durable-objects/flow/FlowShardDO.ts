/**
 * One flow shard of a tenant (`flow/<tenant>/<shard>`, docs/architecture.md#flow-objects): the
 * lines (rule and key) whose keys hash here, kept by `./shard-rows` (a row per line and a row per
 * waiting call); the pure rules are `src/core/flow/shard.ts` and `src/core/flow/slots.ts`. When a
 * slot frees, the chat of the call next in line is told: it was granted the slot (`flowGranted`),
 * or offered it (`flowOffered`, it asks again); the alarm covers leases that run out, a rate that
 * holds the next start back, and a spent rate refilling. A line that holds nothing is deleted, and
 * the shard's storage a minute after its last line: an idle tenant keeps no flow object at all.
 */
import { DurableObject } from "cloudflare:workers";
import { chatName } from "../../src/core/objects/names";
import type { FlowHold } from "../../src/core/flow/rules";
import {
  askLines,
  giveBackLines,
  lineId,
  settleLine,
  type Line,
  type LineFigures,
  type Lines,
  type ShardAnswer,
  type ShardAsk,
} from "../../src/core/flow/shard";
import { figures, type SlotRule } from "../../src/core/flow/slots";
import { ShardRows, type KeptLine } from "./shard-rows";

/** How long a shard that holds nothing keeps its storage, for calls that come again. */
export const EMPTY_KEPT_MS = 60_000;

type Changed = { hold: FlowHold; line: Line; created: boolean };

export class FlowShardDO extends DurableObject<Env> {
  readonly #rows = new ShardRows(this.ctx.storage.sql);
  /** When the alarm is set for (null: none), once known: a request that leaves it as it is writes no alarm. */
  #alarmAt: number | null | undefined;

  /**
   * Calls ask for their lines here, in asking order (again, after a wake-up: the same answer for a
   * holder, its place for a waiter): one request for all the calls of a chat that need this shard.
   */
  async ask(
    tenant: string,
    rules: Record<string, { rule: SlotRule; asOf: number }>,
    asks: ShardAsk[],
  ): Promise<ShardAnswer[]> {
    const lines = this.#open();
    const answers = askLines(lines, rules, asks, Date.now());
    await this.#settle(tenant, lines.changed.values());
    return answers;
  }

  /** Calls give back what they had at these lines: they ended, or they wait at another line. */
  async giveBack(tenant: string, items: { hold: FlowHold; ids: string[] }[]): Promise<void> {
    const lines = this.#open();
    giveBackLines(lines, items, Date.now());
    await this.#settle(tenant, lines.changed.values());
  }

  /** The lines here that run, wait, or still have a spent rate. */
  figures(): LineFigures[] {
    this.#rows.begin();
    const now = Date.now();
    return this.#rows
      .keys()
      .flatMap((key) =>
        [...this.#rows.read(key)].map(([rule, { line }]) => ({ rule, key, ...figures(line.rule, line.slots, now) })),
      );
  }

  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    if (!this.#rows.exists()) return;
    this.#rows.begin();
    const due = this.#rows.due(Date.now());
    await this.#settle(
      due[0]?.tenant,
      due.flatMap(({ hold }) => {
        const known = this.#rows.read(hold.key).get(hold.rule);
        return known ? [{ hold, line: known.line, created: false }] : [];
      }),
    );
    if (!this.#rows.exists()) return;
    const next = this.#rows.nextWake();
    if (next !== null) await this.#alarmBy(next);
    else await this.#dropStorage();
  }

  /** The lines of one request, as they change; the changed ones are settled at its end. */
  #open(): Lines & { changed: Map<string, Changed> } {
    this.#rows.begin();
    const changed = new Map<string, Changed>();
    const stored = (hold: FlowHold) => this.#rows.read(hold.key).get(hold.rule)?.line;
    return {
      changed,
      get: (hold) => changed.get(lineId(hold))?.line ?? stored(hold),
      set: (hold, line) => {
        const id = lineId(hold);
        changed.set(id, { hold, line, created: changed.get(id)?.created ?? stored(hold) === undefined });
      },
    };
  }

  /**
   * Hands what is free to the next in line, keeps each changed line (or deletes it), tells the chats,
   * and brings the alarm forward to the soonest kept line's time. A request that changed nothing
   * writes nothing: a waiter asking again costs no statement.
   */
  async #settle(tenant: string | undefined, changed: Iterable<Changed>): Promise<void> {
    const now = Date.now();
    const offered = new Set<string>();
    const granted = new Map<string, string[]>();
    const kept: KeptLine[] = [];
    const gone: FlowHold[] = [];
    let created = 0;
    for (const { hold, line, created: isNew } of changed) {
      const settled = settleLine(line, now);
      for (const w of settled.woken) offered.add(w.chat);
      for (const g of settled.granted) (granted.get(g.chat) ?? granted.set(g.chat, []).get(g.chat)!).push(g.job_id);
      if (settled.wakeAt === undefined) {
        if (!isNew) {
          gone.push(hold);
          created--;
        }
        continue;
      }
      kept.push({ hold, line: settled.line, wakeAt: settled.wakeAt });
      if (isNew) created++;
    }
    // Kept first, then told: a grant is a promise its chat acts on.
    const count = kept.length || gone.length ? this.#rows.write(tenant!, kept, gone, created, now) : undefined;
    if (tenant) this.#tell(tenant, granted, offered);
    if (count === undefined) return;
    // Nothing held here any more: the storage goes from the alarm a little later, unless calls come
    // again meanwhile (a rule whose calls come and go keeps its tables, not makes them anew per batch).
    if (count === 0) await this.#alarmBy(now + EMPTY_KEPT_MS);
    else if (kept.length) await this.#alarmBy(Math.min(...kept.map((k) => k.wakeAt)));
  }

  /** The chats of the calls next in line hear of it: a grant starts the call, an offer makes the chat ask again. */
  #tell(tenant: string, granted: Map<string, string[]>, offered: Set<string>): void {
    for (const chat of new Set([...granted.keys(), ...offered])) {
      const stub = this.env.CHAT.getByName(chatName(tenant, chat));
      const ids = granted.get(chat);
      if (ids) this.ctx.waitUntil(stub.flowGranted(ids).catch(() => {}));
      if (offered.has(chat)) this.ctx.waitUntil(stub.flowOffered().catch(() => {}));
    }
  }

  /** The object keeps no storage until a call comes again. */
  async #dropStorage(): Promise<void> {
    this.#rows.dropped();
    if (await this.#alarm()) await this.ctx.storage.deleteAlarm();
    this.#alarmAt = null;
    await this.ctx.storage.deleteAll();
  }

  /** Brings the alarm forward to `at` (an alarm that comes early finds nothing due and sets the next). */
  async #alarmBy(at: number): Promise<void> {
    const set = await this.#alarm();
    if (set === null || at < set) {
      await this.ctx.storage.setAlarm(at);
      this.#alarmAt = at;
    }
  }

  /** When the alarm is set for, read once per instance (null, as the alarm runs: none is set). */
  async #alarm(): Promise<number | null> {
    if (this.#alarmAt === undefined) this.#alarmAt = await this.ctx.storage.getAlarm();
    return this.#alarmAt;
  }
}
