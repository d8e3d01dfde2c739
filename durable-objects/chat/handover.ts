/**
 * A turn handed over by the parent chat's subordinate job (the child's side of
 * `spawn_task` / `call_subordinate`): it starts only while the parent's claim
 * still holds the job, so a hand-over still in flight when the parent ended
 * the job, or was deleted, never gives a deleted subtree storage again. A new
 * child announces itself and joins the tenant's index under its parent.
 */
import type { TurnRequest } from "../../src/core/jobs/messages";
import { chatName } from "../../src/core/objects/names";
import type { Chat } from "./chat";

/** The hand-overs under way in this instance: a deletion lets them land (or not) first. */
export class Handovers {
  readonly #inFlight = new Set<Promise<unknown>>();

  async run(chat: Chat, req: TurnRequest): Promise<"started" | "duplicate" | "expired"> {
    const handover = handOver(chat, req);
    this.#inFlight.add(handover);
    try {
      return await handover;
    } finally {
      this.#inFlight.delete(handover);
    }
  }

  settled(): Promise<unknown> {
    return Promise.allSettled(this.#inFlight);
  }
}

async function handOver(chat: Chat, req: TurnRequest): Promise<"started" | "duplicate" | "expired"> {
  // A chat being deleted starts nothing; its parent's job ends "child chat deleted".
  if (chat.store.beingDeleted()) return "duplicate";
  // A hand-over still in flight when its parent ended the job (cancelled it, or was deleted and
  // already asked this chat to go) must not give a deleted subtree storage and a running loop
  // again: only the claim that holds the job may start a turn.
  const parent = chat.store.env().CHAT.getByName(chatName(req.tenant, req.parent_chat_id));
  if (!(await parent.holdsJob(req.parent_job_id, req.lease))) return "duplicate";
  if (chat.store.beingDeleted()) return "duplicate";
  const now = Date.now();
  const { store, child, announce, registration } = chat;
  store.ensure();
  const isNewChat = store.meta("chat_id") === undefined;
  const previousName = store.meta("name");
  const result = child.beginTurn(req, now);
  if (result === "started" && isNewChat) {
    // Cleared once the tenant's index lists the child under its parent; until then the alarm retries it.
    // First: chat.created goes with the index entry.
    registration.owed(now);
    announce.chatCreated(req.name, req.level, now);
  } else if (result === "started" && previousName !== req.name) announce.chatUpdated(req.name, now);
  const armed = store.timers.arm();
  if (result === "started" && isNewChat) await registration.register(now);
  await armed;
  return result;
}
