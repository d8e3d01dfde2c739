/**
 * What the tenant's other objects tell a chat, delegated to by `./ChatDO`: a batch budget reached
 * (`durable-objects/budget`), the tenant's spending past a threshold (`durable-objects/spend`), and
 * room under a flow rule (`durable-objects/flow`, docs/architecture.md#flow-objects). A chat gone or
 * being deleted takes none of it; each arms the alarm for what it set.
 */
import type { SpendAlert } from "../../src/core/budgets/spend";
import type { Chat } from "./chat";
import { mayOpen } from "./gates";
import { budgetReached as stopOverBudget, type Reached } from "./gates/budget";
import { startGranted } from "./gates/flow";

/** The budget of a batch this chat's jobs count against was reached (docs/api.md#budgets). */
export async function budgetReached(chat: Chat, rootChat: string, batchId: string, over: Reached): Promise<void> {
  if (!chat.store.readable()) return;
  stopOverBudget(chat, rootChat, batchId, over, Date.now());
  await chat.store.timers.arm();
}

/** The tenant's spending crossed a threshold through this chat's work: its outbox sends the alert, once. */
export async function spendAlert(chat: Chat, alert: SpendAlert, key: string): Promise<void> {
  if (!chat.store.readable()) return;
  chat.announce.spendAlert(alert, key, Date.now());
  await chat.store.timers.arm();
}

/** A flow object offered a slot to a call of this chat: the flow gate asks again, and so does a waiting model request. */
export async function flowOffered(chat: Chat): Promise<void> {
  if (!chat.store.readable()) return;
  mayOpen(chat.store, "flow", Date.now());
  chat.child.flowOffered(Date.now());
  await chat.store.timers.arm();
}

/** A flow object granted these calls a freed slot outright: they start; a model request's holder asks again. */
export async function flowGranted(chat: Chat, ids: string[]): Promise<void> {
  if (!chat.store.readable()) return;
  if (await startGranted(chat, ids, Date.now())) chat.child.flowOffered(Date.now());
  await chat.store.timers.arm();
}
