/**
 * The chat's side of its tenant's flow shards (docs/architecture.md#flow-objects): calls, or a model
 * request of the agent loop, ask for room under every rule they are under (`acquireMany`), and give
 * back what they had. Calls asked or given back together make one request per shard.
 */
import { acquireMany, byShard, type Acquired } from "../../../src/core/flow/acquire";
import type { JobFlow } from "../../../src/core/flow/job-flow";
import type { SlotRule } from "../../../src/core/flow/slots";
import { flowName } from "../../../src/core/objects/names";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../../src/core/util/limited";
import type { ChatStore } from "../storage/chat-store";

/** A holder of room: a job id, or a model request's. */
export interface RoomHolder {
  id: string;
  flow: JobFlow;
  /** A slot it gets is its lease until then. */
  deadlineAt: number;
}

const shard = (store: ChatStore, index: number) => store.env().FLOW.getByName(flowName(store.address().tenant, index));

/** The rules a group of holders brings a shard: each as the newest admission among theirs read it. */
function newestRules(holders: RoomHolder[]): Record<string, { rule: SlotRule; asOf: number }> {
  const rules: Record<string, { rule: SlotRule; asOf: number }> = {};
  for (const { flow } of holders) {
    for (const [name, rule] of Object.entries(flow.rules)) {
      const asOf = flow.as_of ?? 0;
      if (!rules[name] || rules[name].asOf < asOf) rules[name] = { rule, asOf };
    }
  }
  return rules;
}

/** Asks for room for every holder under every rule of its flow: the outcome of each, by id. */
export function askForRoom(store: ChatStore, holders: RoomHolder[]): Promise<Map<string, Acquired>> {
  const { tenant, chat_id } = store.address();
  const byId = new Map(holders.map((h) => [h.id, h]));
  return acquireMany(
    holders.map((h) => ({ id: h.id, holds: h.flow.holds })),
    (index, asks) =>
      shard(store, index).ask(
        tenant,
        newestRules(asks.map((a) => byId.get(a.id)!)),
        asks.map((a) => {
          const holder = byId.get(a.id)!;
          // Under one rule, a freed slot is granted outright and the chat told (`flowGranted`).
          const sole = holder.flow.holds.length === 1;
          return {
            job_id: a.id,
            chat: chat_id,
            deadline_at: holder.deadlineAt,
            holds: a.holds,
            ...(sole ? { sole } : {}),
          };
        }),
      ),
    (index, items) => shard(store, index).giveBack(tenant, items),
  );
}

/** Gives back what each holder had under every rule of its flow (a slot, an offer or a place in line); never throws. */
export async function giveBackRoom(store: ChatStore, holders: Omit<RoomHolder, "deadlineAt">[]): Promise<void> {
  const { tenant } = store.address();
  const shards = byShard(holders.flatMap((h) => h.flow.holds.map((hold) => [hold, h.id] as const)));
  await forEachLimited([...shards], MAX_OPEN_CONNECTIONS, ([index, items]) =>
    shard(store, index)
      .giveBack(tenant, items)
      .catch(() => {}),
  );
}
