/**
 * Room for an agent loop's model request under the flow rules on `llm` (docs/api.md#flow-control):
 * one holder per turn and step, asked for before the request and given back once its answer is in.
 * While it holds or waits, the holder is kept in the chat's meta, so a turn stopped meanwhile gives
 * it back, and a request out in a Worker runner keeps it across the chat's restarts.
 */
import type { TenantConfig } from "../../../src/core/config/schema";
import { planFlow, type JobFlow } from "../../../src/core/flow/job-flow";
import { LLM_FLOW_NAME } from "../../../src/core/flow/rules";
import { askForRoom, giveBackRoom } from "../jobs/flow-objects";
import { childIdentity } from "./child-admission";
import type { ChatStore } from "../storage/chat-store";
import { readMeta, writeMeta } from "../storage/schema";
import type { Turn } from "../storage/turns";

/** The meta key of the running turn's model request while it holds or waits for room. */
const MODEL_ROOM = "model_room";

export type ModelRoom =
  | { outcome: "granted"; release: () => Promise<void> }
  | { outcome: "waiting" }
  | { outcome: "refused"; message: string };

export async function modelRoom(store: ChatStore, turn: Turn, config: TenantConfig): Promise<ModelRoom> {
  const metadata = readMeta(store.sql, "metadata") || null;
  const flow = planFlow(
    config.flow,
    {
      tool: LLM_FLOW_NAME,
      args: {},
      metadata: metadata === null ? null : (JSON.parse(metadata) as Record<string, unknown>),
      agent: childIdentity(store.sql).profile,
    },
    Date.now(),
  );
  if (!flow) return { outcome: "granted", release: async () => {} };
  const holder = `${turn.parent_job_id}:llm:${turn.steps}`;
  writeMeta(store.sql, MODEL_ROOM, JSON.stringify({ flow, holder }));
  const room = (await askForRoom(store, [{ id: holder, flow, deadlineAt: turn.deadline_at }])).get(holder)!;
  // This request's own holder: a stop may have given back (and cleared) the meta meanwhile, and what
  // was granted after it must go back all the same.
  const release = async () => {
    if (readMeta(store.sql, MODEL_ROOM) === JSON.stringify({ flow, holder })) writeMeta(store.sql, MODEL_ROOM, "");
    await giveBackRoom(store, [{ id: holder, flow }]);
  };
  if (room.outcome === "granted") return { outcome: "granted", release };
  if (room.outcome === "waiting") return { outcome: "waiting" };
  await release();
  return { outcome: "refused", message: room.message };
}

/** What a stopped turn's model request had under the flow rules (a slot or a place in line) goes back. */
export function giveBackModelRoom(store: ChatStore): void {
  store.ctx.waitUntil(releaseModelRoom(store));
}

/**
 * A model request that has its answer gives back its room: kept in meta, it survives the chat's restarts
 * while the runner works.
 */
export async function releaseModelRoom(store: ChatStore): Promise<void> {
  const held = readMeta(store.sql, MODEL_ROOM);
  if (!held) return;
  const { flow, holder } = JSON.parse(held) as { flow: JobFlow; holder: string };
  writeMeta(store.sql, MODEL_ROOM, "");
  await giveBackRoom(store, [{ id: holder, flow }]);
}
