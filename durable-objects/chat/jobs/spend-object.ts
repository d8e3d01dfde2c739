/**
 * The chat's side of the tenant's spend object (docs/architecture.md#spending-limits): calls take
 * their share before they start, an agent loop asks before each model request and adds what it spent.
 * Nothing is asked while the tenant has no `limits.spend`.
 */
import type { Spent } from "../../../src/core/budgets/budget";
import type { SpendLimits } from "../../../src/core/budgets/spend";
import { spendName } from "../../../src/core/objects/names";
import type { ChatStore } from "../storage/chat-store";

const object = (store: ChatStore) => store.env().SPEND.getByName(spendName(store.address().tenant));

/** The tenant's spending limit as this chat last heard it (its limits come with every batch). */
export const spendLimits = (store: ChatStore): SpendLimits | undefined => store.limits().spend;

export function takeSpend(store: ChatStore, limits: SpendLimits, jobIds: string[]) {
  const { tenant, chat_id } = store.address();
  return object(store).take(tenant, limits, chat_id, jobIds);
}

/** `step`: the turn's step that asks (`stepOf` in ../subagents/agent-loop). */
export function spendAllows(store: ChatStore, step: string) {
  const limits = spendLimits(store);
  if (!limits) return Promise.resolve({ ok: true as const });
  const { tenant, chat_id } = store.address();
  return object(store).mayRequest(tenant, limits, chat_id, step);
}

export async function spendAnswered(store: ChatStore, step: string, spent: Partial<Spent>): Promise<void> {
  const limits = spendLimits(store);
  if (!limits) return;
  const { tenant, chat_id } = store.address();
  await object(store).answered(tenant, limits, chat_id, step, spent);
}
