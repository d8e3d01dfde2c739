/**
 * Deleting a chat with its whole subtree (docs/api.md#deleting-a-chat), durably.
 *
 * The first step is one local transaction: the chat records that it is being
 * deleted (from then on every read of it answers 404 and nothing new is
 * admitted), cancels its jobs, stops its turns and drops every other timer, so
 * no agent loop of it takes another step. The rest needs other objects and any
 * of them may be briefly unreachable: the tenant's index forgets the subtree
 * (nothing of it is listed), the parent's job for this chat ends "child chat
 * deleted", and each child chat deletes itself and, in turn, its own children
 * (a chain of at most `max_depth` ≤ 5 calls). A pass retries whatever is left;
 * the `delete` timer runs passes until nothing is, and only then does the chat
 * wipe its own storage. So a chat that is gone has no descendant left behind,
 * and the `deleted` answer means the whole subtree is gone.
 */
import { quoteName } from "../../src/core/calls/names";
import { ApiError, unavailable } from "../../src/core/http/errors";
import type { Usage } from "../../src/core/jobs/messages";
import { tenantName } from "../../src/core/objects/names";
import { within } from "../../src/core/util/abort";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../src/core/util/limited";
import type { JobMachine } from "./jobs/job-machine";
import { giveBackModelRoom } from "./subagents/model-room";
import type { Registration } from "./registration";
import { DELETION_META_KEY, type ChatStore } from "./storage/chat-store";

/** The error the parent's job for a deleted child chat ends with. */
export const CHILD_DELETED_ERROR = "child chat deleted";

/** What a job route gets from a chat being deleted: no job may join a chat about to be wiped. */
export const beingDeleted = (chatId: string) =>
  unavailable(
    `Chat '${quoteName(chatId)}' is being deleted; retry in a moment: once the deletion has finished, the same id starts a new chat.`,
  );

/** A request that waited on a chat deleted meanwhile: its jobs went with it. */
export const deletedWhileWaiting = () =>
  new ApiError(404, "chat_not_found", "The chat was deleted while the request waited; its jobs are gone.");

/** Who asked: the API (the chat's parent must hear of it), or the parent's own deletion. */
export type DeletedBy = "request" | "parent";
export type DeletionAnswer = "deleted" | "pending" | "not_found";

/** The steps besides the children that need another object. */
type Step = "index" | "parent";

export interface DeletionState {
  by: DeletedBy;
  left: Step[];
  /** Usage of the turns that were running, by parent job: the parent's job ends with it. */
  usage: Record<string, Usage>;
  /** Passes the alarm has run: the next one waits longer. */
  retries: number;
}

/**
 * Pauses between the passes a DELETE request makes itself before answering 503
 * (docs/architecture.md#platform-rules).
 */
const REQUEST_PAUSES_MS = [100, 400];
/** A DELETE request starts no further pass after this long: the alarm goes on instead. */
const REQUEST_BUDGET_MS = 8_000;
/** One call to another object; a child's answer includes its own children's, so it may take a moment. */
const CALL_TIMEOUT_MS = 5_000;
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/** A child deleted by its parent's own deletion leaves the parent alone: that parent ended its jobs before asking. */
export function startingState(by: DeletedBy, isChild: boolean, usage: Record<string, Usage>): DeletionState {
  return { by, left: by === "request" && isChild ? ["index", "parent"] : ["index"], usage, retries: 0 };
}

/** When the alarm tries again after `retries` passes: 1 s, doubling, at most a minute. */
export function retryDelayMs(retries: number): number {
  return Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, retries), RETRY_MAX_MS);
}

export class Deletion {
  /** The pass in progress: passes never overlap, a second asker waits for the same one. */
  #pass: Promise<boolean> | undefined;

  constructor(
    private readonly store: ChatStore,
    private readonly machine: JobMachine,
    private readonly registration: Registration,
  ) {}

  /** Whether the chat is being deleted: it is no longer readable and admits nothing. */
  pending(): boolean {
    return this.store.beingDeleted();
  }

  /** Starts the deletion (or joins the one under way) and runs passes: a request a few, a parent one. */
  async delete(by: DeletedBy): Promise<DeletionAnswer> {
    if (!this.store.exists()) return "not_found";
    if (!this.pending()) {
      this.#begin(by, Date.now());
      await this.store.timers.arm();
    }
    return this.#drive(by === "request" ? REQUEST_PAUSES_MS : []);
  }

  /** The chat's alarm while it is being deleted: the next try is set first, so a pass that dies still leaves one. */
  async alarm(): Promise<void> {
    const state = this.#state();
    if (!state) return;
    const retries = state.retries + 1;
    this.#save({ ...state, retries });
    this.store.timers.set("delete", "", Date.now() + retryDelayMs(retries));
    await this.store.timers.arm();
    try {
      await this.#drive([]);
    } catch (e) {
      console.warn("a deletion pass failed; the alarm tries again", (e as Error).message);
    }
  }

  /**
   * This chat's child was deleted: the jobs running in it end now (their child will never report),
   * and it is no longer a child to continue. A chat being deleted itself keeps the row, since its
   * own pass still has to see that child gone.
   */
  async childDeleted(childId: string, usage: Record<string, Usage>): Promise<void> {
    if (!this.store.exists()) return;
    const now = Date.now();
    this.store.transaction(() => {
      for (const job of this.store.jobs.activeSubordinates()) {
        if (job.context_id !== childId) continue;
        this.machine.finish(
          job,
          { state: "error", error: CHILD_DELETED_ERROR, error_type: "cancelled", usage: usage[job.job_id] },
          now,
        );
      }
      if (!this.pending()) this.store.children.remove(childId);
    });
    await this.store.timers.arm();
  }

  /** One transaction: from its commit on the chat is unreadable, admits nothing and runs nothing. */
  #begin(by: DeletedBy, now: number): void {
    // A running turn's model request may hold room under a flow rule: no reply will give it back now.
    giveBackModelRoom(this.store);
    this.store.transaction(() => {
      const usage: Record<string, Usage> = {};
      for (let turn = this.store.turns.running(); turn; turn = this.store.turns.running()) {
        usage[turn.parent_job_id] = turn.usage;
        this.store.turns.update(turn.parent_job_id, { state: "stopped", awaiting: null }, now);
      }
      // Written before the cancels: their hooks see it and leave the child chats to this deletion
      // (a stop sent to a child already wiped would give it storage again).
      this.#save(startingState(by, this.store.meta("parent_chat_id") !== undefined, usage));
      for (const job of this.store.jobs.active()) this.machine.cancel(job.job_id, now);
      // The cancels moved timers (purge, queue, deliveries, turns): none of them is to run now.
      this.store.timers.clearAll();
      this.store.timers.set("delete", "", now + retryDelayMs(0));
    });
  }

  async #drive(pauses: number[]): Promise<"deleted" | "pending"> {
    const until = Date.now() + REQUEST_BUDGET_MS;
    for (let i = 0; ; i++) {
      if (!this.store.exists() || (await this.#onePass())) return "deleted";
      const pause = pauses[i];
      if (pause === undefined || Date.now() + pause > until) return "pending";
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  #onePass(): Promise<boolean> {
    this.#pass ??= this.#runPass().finally(() => (this.#pass = undefined));
    return this.#pass;
  }

  /** True once everything is done and the chat is wiped. */
  async #runPass(): Promise<boolean> {
    const state = this.#state();
    if (!state) return !this.store.exists();
    const { tenant, chat_id } = this.store.address();
    const done = await Promise.all(state.left.map((step) => this.#try(step, chat_id, state)));
    const childrenLeft = await this.#deleteChildren();
    const left = state.left.filter((_, i) => !done[i]);
    // Re-read: the alarm may have counted a retry meanwhile.
    this.#save({ ...this.#state()!, left });
    if (left.length || childrenLeft) return false;
    await this.registration.wipe();
    // The index dropped the subtree in the first pass; this covers a registration that landed after it.
    // The chat has no address any more: the tenant read before the wipe names the index.
    await this.store
      .env()
      .TENANT.getByName(tenantName(tenant))
      .forgetChat(chat_id)
      .catch((e: Error) => console.warn("chat index update failed", e.message));
    return true;
  }

  async #try(step: Step, chatId: string, state: DeletionState): Promise<boolean> {
    try {
      if (step === "index") {
        // The whole subtree at once, by the index's parent links: nothing of it is listed from now on.
        await this.registration.settled();
        await within(this.store.tenant().forgetSubtree(chatId), CALL_TIMEOUT_MS, "the tenant's chat index");
      } else {
        const parent = this.store.meta("parent_chat_id")!;
        await within(
          this.store.chat(parent).childDeleted(chatId, state.usage),
          CALL_TIMEOUT_MS,
          `parent chat '${parent}'`,
        );
      }
      return true;
    } catch (e) {
      console.warn("a deletion step failed; retried", step, (e as Error).message);
      return false;
    }
  }

  /** Asks each child still listed to delete itself (at most 4 calls open); returns how many are left. */
  async #deleteChildren(): Promise<number> {
    const ids = this.store.children.all().map((c) => c.context_id);
    const gone: string[] = [];
    await forEachLimited(ids, MAX_OPEN_CONNECTIONS, async (id) => {
      try {
        const answer = await within(this.store.chat(id).deleteChat("parent"), CALL_TIMEOUT_MS, `child chat '${id}'`);
        if (answer !== "pending") gone.push(id);
      } catch (e) {
        console.warn("deleting a child chat failed; retried", id, (e as Error).message);
      }
    });
    for (const id of gone) this.store.children.remove(id);
    return ids.length - gone.length;
  }

  #state(): DeletionState | undefined {
    const raw = this.store.exists() ? this.store.meta(DELETION_META_KEY) : undefined;
    return raw === undefined ? undefined : (JSON.parse(raw) as DeletionState);
  }

  #save(state: DeletionState): void {
    this.store.setMeta(DELETION_META_KEY, JSON.stringify(state));
  }
}
