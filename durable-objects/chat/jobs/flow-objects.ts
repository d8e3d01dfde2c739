/**
 * The chat's side of its flow objects (docs/architecture.md#flow-objects): a call, or a model
 * request of the agent loop, asks for room under every rule it is under (`acquireAll`), and gives
 * back what it had. One request per rule's object each way.
 */
import { acquireAll, type Acquired } from "../../../src/flow/acquire";
import type { JobFlow } from "../../../src/flow/job-flow";
import type { FlowHold } from "../../../src/flow/rules";
import { flowName } from "../../../src/objects/names";
import type { ChatStore } from "../storage/chat-store";

const object = (store: ChatStore, hold: FlowHold) => store.env().FLOW.getByName(flowName(store.address().tenant, hold.rule, hold.key));

/** Asks for room under every rule of `flow` for the holder `holderId` (a job id), until `deadlineAt`. */
export function askForRoom(store: ChatStore, flow: JobFlow, holderId: string, deadlineAt: number): Promise<Acquired> {
  const { tenant, chat_id } = store.address();
  return acquireAll(
    flow.holds,
    (hold) => object(store, hold).ask(tenant, hold.key, flow.rules[hold.rule]!, { job_id: holderId, chat: chat_id, deadline_at: deadlineAt }),
    (hold) => object(store, hold).giveBack(tenant, hold.key, flow.rules[hold.rule]!, holderId),
  );
}

/** Gives back what `holderId` had under every rule of `flow` (a slot, an offer or a place in line); never throws. */
export async function giveBackRoom(store: ChatStore, flow: JobFlow, holderId: string): Promise<void> {
  const { tenant } = store.address();
  await Promise.all(flow.holds.map((hold) => object(store, hold).giveBack(tenant, hold.key, flow.rules[hold.rule]!, holderId).catch(() => {})));
}
