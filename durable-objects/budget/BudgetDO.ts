/**
 * The budget of one top-level batch (`budget/<tenant>/<root chat>/<batch>`, docs/architecture.md#budgets):
 * what the batch and everything it started spent, counted as the work happens in whichever chat it
 * happens. A call or a subagent takes its share before it starts; an agent loop asks before each
 * model request and adds what the request spent once it answers, so loops running side by side can
 * overrun a budget only by the requests already in flight when it was reached. Once reached, every
 * chat that asked is told (its calls not yet started end), the top-level one announces it, and the
 * alarm tells again whoever did not hear it.
 *
 * Its storage goes once the batch is over: the top-level chat closes it when the batch's last job
 * ends, and a minute later (what a subagent's last answer may still bring) it deletes everything.
 * One never closed (its chat deleted meanwhile) goes after 31 days without a request.
 */
import { DurableObject } from "cloudflare:workers";
import {
  addSpent,
  askModel,
  modelAnswered,
  noneLeft,
  NOTHING_SPENT,
  stop,
  type BudgetScope,
  type Ledger,
  type Reached,
  type Spent,
} from "../../src/core/budgets/budget";
import { chatName } from "../../src/core/objects/names";
import { LazyTable } from "../shared/lazy-table";

export type { Reached };
export type BudgetAnswer = { ok: true } | ({ ok: false } & Reached);

interface Stored extends Ledger {
  tenant: string;
  scope: BudgetScope;
  /** Jobs that took their share: asking again (a retry) takes nothing more. */
  taken: Record<string, true>;
  /** Chats that asked: they are told when the budget is reached. */
  chats: string[];
  /**
   * What stopped it: a model request, call or subagent asked for when none of its kind was left, or
   * tokens or dollars spent up to their limit. From then on nothing more starts.
   */
  reached?: Reached;
  told?: boolean;
  /** Chats not yet told that it was reached. */
  untold: string[];
  /** When the batch's last job ended: the storage goes `CLOSED_GRACE_MS` later. */
  closed_at?: number;
  /** The last request: a budget never closed goes `IDLE_MS` after it. */
  active_at?: number;
}

const TELL_AGAIN_MS = 5_000;
/** An answer still on its way when the batch ended is counted (the batch's final usage is already sent). */
const CLOSED_GRACE_MS = 60_000;
/** Longer than any batch can run: `max_job_timeout_seconds` is at most 30 days. */
const IDLE_MS = 31 * 86_400_000;

export class BudgetDO extends DurableObject<Env> {
  #stored: Stored | undefined;
  readonly #table: LazyTable;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#table = new LazyTable(ctx.storage.sql, "budget", [
      `CREATE TABLE IF NOT EXISTS budget (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL)`,
    ]);
  }

  /**
   * Calls (`tool`) and subagents (`subordinate`) of chat `chat` about to start: each takes one of its
   * kind, or is refused when none is left, or once the budget was reached.
   */
  take(
    tenant: string,
    scope: BudgetScope,
    chat: string,
    asks: { job_id: string; kind: "tool" | "subordinate" }[],
  ): BudgetAnswer[] {
    const state = this.#read(tenant, scope, chat);
    const answers = asks.map((ask): BudgetAnswer => {
      if (state.taken[ask.job_id]) return { ok: true };
      const field = ask.kind === "tool" ? "tool_calls" : "subagents";
      if (stop(state, noneLeft(state.scope.limits, state.spent, field))) return { ok: false, ...state.reached! };
      state.spent = addSpent(state.spent, { [field]: 1 });
      state.taken[ask.job_id] = true;
      return { ok: true };
    });
    this.#settle(state);
    return answers;
  }

  /**
   * An agent loop of chat `chat` is about to ask its model for its turn's `step`: the request is
   * counted now, once per step (`llm_calls` can never be overrun); its tokens and cost, known once
   * it answers, come with `answered`.
   */
  mayRequest(tenant: string, scope: BudgetScope, chat: string, step: string): BudgetAnswer {
    const state = this.#read(tenant, scope, chat);
    const refused = askModel(state.scope.limits, state, `${chat} ${step}`);
    this.#settle(state);
    return refused ? { ok: false, ...refused } : { ok: true };
  }

  /**
   * What the model request of chat `chat`'s `step` spent (its tokens and cost) once it answered;
   * nothing when it ended with no answer, or when the budget is gone (its batch is long over).
   */
  answered(tenant: string, scope: BudgetScope, chat: string, step: string, spent: Partial<Spent>): void {
    if (!this.#load()) return;
    const state = this.#read(tenant, scope, chat);
    modelAnswered(state.scope.limits, state, `${chat} ${step}`, spent);
    // An answer is what the grace after closing waits for: it does not reopen the budget.
    this.#settle(state, { reopen: false });
  }

  /** The batch's last job ended: the storage goes after the grace, unless something asks again meanwhile. */
  close(): void {
    const state = this.#load();
    if (!state) return;
    state.closed_at = Date.now();
    this.#settle(state, { reopen: false });
    // A chat still to be told keeps its sooner alarm.
    if (state.untold.length === 0) this.ctx.waitUntil(this.ctx.storage.setAlarm(state.closed_at + CLOSED_GRACE_MS));
  }

  override async alarm(): Promise<void> {
    const state = this.#load();
    if (!state) return;
    const now = Date.now();
    const over = state.closed_at !== undefined ? state.closed_at + CLOSED_GRACE_MS : (state.active_at ?? now) + IDLE_MS;
    // Past its end nobody needs telling any more: a chat never reached does not keep the storage.
    if (now >= over) {
      this.#stored = undefined;
      this.#table.dropped();
      await this.ctx.storage.deleteAll();
      return;
    }
    if (state.untold.length) await this.#tell(state);
    if (this.#load()?.untold.length === 0) await this.ctx.storage.setAlarm(over);
  }

  #read(tenant: string, scope: BudgetScope, chat: string): Stored {
    let state = this.#load();
    if (!state) {
      state = { tenant, scope, spent: { ...NOTHING_SPENT }, asking: {}, taken: {}, chats: [], untold: [] };
      // The budget's own end, should its batch never close it: one alarm, set once.
      this.ctx.waitUntil(this.ctx.storage.setAlarm(Date.now() + IDLE_MS));
    }
    // A chat that first asks after the budget was reached hears it from its answers: it is not told too.
    if (!state.chats.includes(chat)) state.chats.push(chat);
    return state;
  }

  /**
   * Keeps the state; the first time the budget is reached, every chat that asked is told. A request reopens a
   * closed budget.
   */
  #settle(state: Stored, { reopen = true } = {}): void {
    state.active_at = Date.now();
    if (reopen) delete state.closed_at;
    if (state.reached && !state.told) {
      state.told = true;
      state.untold = [...state.chats];
    }
    this.#table.create();
    this.ctx.storage.sql.exec(`INSERT OR REPLACE INTO budget (id, state) VALUES (1, ?)`, JSON.stringify(state));
    this.#stored = state;
    if (state.untold.length) this.ctx.waitUntil(this.#tell(state));
  }

  /** Tells the chats that have not heard yet; those it cannot reach hear it from the alarm. */
  async #tell(state: Stored): Promise<void> {
    const { root_chat, batch_id } = state.scope;
    const told = await Promise.all(
      state.untold.map((chat) =>
        this.env.CHAT.getByName(chatName(state.tenant, chat))
          .budgetReached(root_chat, batch_id, state.reached!)
          .then(() => chat)
          .catch(() => null),
      ),
    );
    const current = this.#load();
    if (!current) return;
    current.untold = current.untold.filter((chat) => !told.includes(chat));
    this.ctx.storage.sql.exec(`INSERT OR REPLACE INTO budget (id, state) VALUES (1, ?)`, JSON.stringify(current));
    this.#stored = current;
    if (current.untold.length) await this.ctx.storage.setAlarm(Date.now() + TELL_AGAIN_MS);
  }

  #load(): Stored | undefined {
    if (this.#stored) return this.#stored;
    if (!this.#table.exists()) return undefined;
    const row = this.ctx.storage.sql.exec<{ state: string }>(`SELECT state FROM budget WHERE id = 1`).toArray()[0];
    this.#stored = row ? (JSON.parse(row.state) as Stored) : undefined;
    return this.#stored;
  }
}
