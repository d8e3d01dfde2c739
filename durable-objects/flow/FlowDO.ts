/**
 * One flow rule and key of a tenant (`flow/<tenant>/<rule>/<key>`, docs/architecture.md#flow-objects):
 * who holds its slots, who waits, its rate. Objects are spread by rule and key, so one busy rule
 * does not slow another, and the tenant's own objects stay off the path. The state is one row,
 * written with every change; the pure rules are `src/flow/slots.ts`. When a slot frees, the chats
 * of the waiters next in line are woken (they ask again); the alarm covers leases that run out and
 * a rate that holds the next start back.
 */
import { DurableObject } from "cloudflare:workers";
import { chatName, flowIndexName } from "../../src/objects/names";
import { ask, emptySlots, figures, giveBack, offerNext, type Answer, type Ask, type SlotRule, type SlotState } from "../../src/flow/slots";

interface Stored {
  tenant: string;
  /** This object's key, for its reports to the rule's index. */
  key: string;
  /** The rule as the newest config a call brought it: queued calls are judged against the current limits. */
  rule: SlotRule;
  /** When the config `rule` came from was read (a call's admission): an older one does not bring back old limits. */
  rule_as_of?: number;
  slots: SlotState;
}

export class FlowDO extends DurableObject<Env> {
  #stored: Stored | undefined;
  /** The figures the rule's index last heard, and whether a report is on its way. */
  #reported = "";
  #reporting = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS flow (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL)`);
  }

  /**
   * Calls ask for a slot, in order (again, after a wake-up: the same answer for a holder, its place
   * for a waiter): one request for all the calls of a chat that need this rule and key.
   */
  ask(tenant: string, key: string, rule: SlotRule, ruleAsOf: number, asks: Ask[]): Answer[] {
    const now = Date.now();
    const before = this.#read(tenant, key, rule);
    // A call's rules are as new as its admission: a newer one brings the current limits (and is new here anyway, so it writes).
    const newer = ruleAsOf > (before.rule_as_of ?? -Infinity);
    const current = newer ? rule : before.rule;
    let slots = before.slots;
    const answers = asks.map((a) => {
      const asked = ask(current, slots, a, now);
      slots = asked.state;
      return asked.answer;
    });
    // Waiters asking again (woken, or their chat's periodic look) with still no room change nothing: nothing to write.
    if (slots !== before.slots || newer) this.#settle({ ...before, ...(newer ? { rule, rule_as_of: ruleAsOf } : {}), slots }, now);
    return answers;
  }

  /** Calls give back what they had here: they ended, or they wait at another rule. */
  giveBack(tenant: string, key: string, rule: SlotRule, jobIds: string[]): void {
    const now = Date.now();
    // The rule stays as the newest ask brought it: a call admitted under older limits does not bring them back.
    const stored = this.#read(tenant, key, rule);
    this.#settle({ ...stored, slots: jobIds.reduce((slots, id) => giveBack(slots, id, now), stored.slots) }, now);
  }

  /** What `GET /v1/flow` shows of this key. */
  figures(): ReturnType<typeof figures> | undefined {
    const stored = this.#load();
    return stored ? figures(stored.rule, stored.slots, Date.now()) : undefined;
  }

  override alarm(): void {
    const stored = this.#load();
    if (stored) this.#settle(stored, Date.now());
  }

  /** Offers what is free to the next in line, keeps the state, wakes their chats, and sets the alarm. */
  #settle(stored: Stored, now: number): void {
    const { state, woken, again } = offerNext(stored.rule, stored.slots, now);
    this.#write({ ...stored, slots: state });
    for (const chat of new Set(woken.map((w) => w.chat))) {
      this.ctx.waitUntil(this.env.CHAT.getByName(chatName(stored.tenant, chat)).flowOffered().catch(() => {}));
    }
    const idle = state.holders.length === 0 && state.offers.length === 0 && state.waiters.length === 0;
    if (again !== undefined) this.ctx.waitUntil(this.ctx.storage.setAlarm(again));
    else if (idle) this.ctx.waitUntil(this.ctx.storage.deleteAlarm());
    this.#report();
  }

  /**
   * Tells the rule's index this key's figures when they changed, beside the call (one report on
   * its way at a time; the latest figures follow it), so `GET /v1/flow` finds a keyed rule's busy keys.
   */
  #report(): void {
    const stored = this.#stored;
    // A rule without a key has this one object, which `GET /v1/flow` asks itself: no index to tell.
    if (!stored?.rule.keyed || this.#reporting) return;
    const now = figures(stored.rule, stored.slots, Date.now());
    const text = JSON.stringify(now);
    if (text === this.#reported) return;
    this.#reporting = true;
    const burst = stored.rule.rate ? (stored.rule.rate.burst ?? stored.rule.rate.limit) : 0;
    const atRest = now.running === 0 && now.queued === 0 && (now.available === undefined || now.available >= burst);
    const index = this.env.FLOW_INDEX.getByName(flowIndexName(stored.tenant, stored.rule.name));
    this.ctx.waitUntil(
      index
        .report(stored.key, now, atRest)
        .then(() => {
          this.#reported = text;
          this.#reporting = false;
          // What changed meanwhile follows it.
          if (JSON.stringify(figures(stored.rule, this.#stored!.slots, Date.now())) !== this.#reported) this.#report();
        })
        // A failed report is not retried at once (the index may be down): the next change reports again.
        .catch(() => (this.#reporting = false)),
    );
  }

  #read(tenant: string, key: string, rule: SlotRule): Stored {
    return this.#load() ?? { tenant, key, rule, slots: emptySlots() };
  }

  #load(): Stored | undefined {
    if (this.#stored) return this.#stored;
    const row = this.ctx.storage.sql.exec<{ state: string }>(`SELECT state FROM flow WHERE id = 1`).toArray()[0];
    this.#stored = row ? (JSON.parse(row.state) as Stored) : undefined;
    return this.#stored;
  }

  #write(stored: Stored): void {
    this.ctx.storage.sql.exec(`INSERT OR REPLACE INTO flow (id, state) VALUES (1, ?)`, JSON.stringify(stored));
    this.#stored = stored;
  }
}
