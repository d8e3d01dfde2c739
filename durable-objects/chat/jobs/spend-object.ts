/**
 * The chat's side of the tenant's spend object (docs/architecture.md#spending-limits): calls take
 * their share before they start, an agent loop asks before each model request and adds what it spent.
 * Nothing is asked while the tenant has no `limits.spend`.
 */
import type { Reached, Spent } from "../../../src/core/budgets/budget";
import type { Period, SpendLimits } from "../../../src/core/budgets/spend";
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
export async function spendAllows(
  store: ChatStore,
  step: string,
): Promise<{ ok: true } | ({ ok: false; period: Period } & Reached)> {
  const limits = spendLimits(store);
  if (!limits) return { ok: true };
  const { tenant, chat_id } = store.address();
  const answer = await object(store).mayRequest(tenant, limits, chat_id, step);
  return answer.ok ? answer : { ...answer, period: limits.period };
}

/**
 * What a model request spent, to the tenant's count: beside the reply, never in its way (a failure here
 * must not lose the reply the chat already took); a count it misses is a request the limit may pass by.
 */
export function spendAnswered(store: ChatStore, step: string, spent: Partial<Spent>): void {
  const limits = spendLimits(store);
  if (!limits) return;
  const { tenant, chat_id } = store.address();
  store.ctx.waitUntil(
    object(store)
      .answered(tenant, limits, chat_id, step, spent)
      .catch((e) => console.error("a model request's spend was not counted", step, (e as Error).message)),
  );
}
