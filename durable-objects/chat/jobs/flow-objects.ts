/**
 * The chat's side of its flow objects (docs/architecture.md#flow-objects): calls, or a model
 * request of the agent loop, ask for room under every rule they are under (`acquireMany`), and give
 * back what they had. Calls asked or given back together make one request per rule and key.
 */
import { acquireMany, byObject, type Acquired } from "../../../src/flow/acquire";
import type { JobFlow } from "../../../src/flow/job-flow";
import type { FlowHold } from "../../../src/flow/rules";
import type { SlotRule } from "../../../src/flow/slots";
import { flowName } from "../../../src/objects/names";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../../src/util/limited";
import type { ChatStore } from "../storage/chat-store";

/** A holder of room: a job id, or a model request's. */
export interface RoomHolder {
  id: string;
  flow: JobFlow;
  /** A slot it gets is its lease until then. */
  deadlineAt: number;
}

const object = (store: ChatStore, hold: FlowHold) => store.env().FLOW.getByName(flowName(store.address().tenant, hold.rule, hold.key));

/** The rule a group of holders brings its object: the newest among theirs. */
function newestRule(holders: RoomHolder[], name: string): { rule: SlotRule; asOf: number } {
  const newest = holders.reduce((a, b) => ((b.flow.as_of ?? 0) > (a.flow.as_of ?? 0) ? b : a));
  return { rule: newest.flow.rules[name]!, asOf: newest.flow.as_of ?? 0 };
}

/** Asks for room for every holder under every rule of its flow: the outcome of each, by id. */
export function askForRoom(store: ChatStore, holders: RoomHolder[]): Promise<Map<string, Acquired>> {
  const { tenant, chat_id } = store.address();
  const byId = new Map(holders.map((h) => [h.id, h]));
  return acquireMany(
    holders.map((h) => ({ id: h.id, holds: h.flow.holds })),
    (hold, ids) => {
      const { rule, asOf } = newestRule(ids.map((id) => byId.get(id)!), hold.rule);
      return object(store, hold).ask(tenant, hold.key, rule, asOf, ids.map((id) => ({ job_id: id, chat: chat_id, deadline_at: byId.get(id)!.deadlineAt })));
    },
    (hold, ids) => object(store, hold).giveBack(tenant, hold.key, newestRule(ids.map((id) => byId.get(id)!), hold.rule).rule, ids),
  );
}

/** Gives back what each holder had under every rule of its flow (a slot, an offer or a place in line); never throws. */
export async function giveBackRoom(store: ChatStore, holders: Omit<RoomHolder, "deadlineAt">[]): Promise<void> {
  const { tenant } = store.address();
  const byId = new Map(holders.map((h) => [h.id, h]));
  const groups = byObject(holders.flatMap((h) => h.flow.holds.map((hold) => [hold, h.id] as const)));
  await forEachLimited(groups, MAX_OPEN_CONNECTIONS, ({ hold, ids }) =>
    object(store, hold)
      .giveBack(tenant, hold.key, byId.get(ids[0]!)!.flow.rules[hold.rule]!, ids)
      .catch(() => {}),
  );
}
