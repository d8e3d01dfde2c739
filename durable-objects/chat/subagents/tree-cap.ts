/**
 * The ChatDO's side of the per-tree subagent cap (docs/api.md#caps-permissions-and-depth), around the
 * pure rules of `./tree-slots` and `./subagent-cap`: reserving slots before
 * admission (at the root, locally; in a child, one RPC to the root), settling
 * them after it, and giving them back when subordinates end.
 */
import type { JobSpec } from "../../../src/core/jobs/job-spec";
import type { Caller, ChatLimits } from "../../../src/core/jobs/messages";
import { chatName } from "../../../src/core/objects/names";
import { admitInOrder, type InOrderAdmission } from "./admit-in-order";
import type { ChatStore } from "../storage/chat-store";
import type { CapState } from "./subagent-cap";
import { NEW_CHAT_STATE, type SubordinateState } from "./subordinates";
import { rootOf, subordinateState } from "./subordinate-state";
import { treeAllowance, UNLIMITED_TREE, type TreeAllowance, type TreeReservation } from "../storage/tree-slots";

type Target = { tenant: string; chat_id: string; limits: ChatLimits };

export class TreeCap {
  constructor(private readonly store: ChatStore) {}

  /** This chat's tree root: itself, unless it is a child. */
  rootOf(chatId: string): string {
    return rootOf(this.store, chatId);
  }

  /**
   * Slots for new subordinates. A child asks its root (one RPC, granting up to
   * `specs.length`); the root itself grants inside its admission step instead.
   */
  async reserve(
    target: Target,
    specs: Pick<JobSpec, "job_id" | "timeout_seconds">[],
    now: number,
  ): Promise<TreeReservation> {
    const expiresAt = now + Math.max(0, ...specs.map((s) => s.timeout_seconds)) * 1000;
    const root = this.rootOf(target.chat_id);
    if (specs.length === 0 || root === target.chat_id)
      return { remote: false, slots: [], holders: [], expiresAt, root, tenant: target.tenant };
    const granted = await this.store
      .env()
      .CHAT.getByName(chatName(target.tenant, root))
      .reserveTreeSlots({
        job_ids: specs.map((s) => s.job_id!),
        limit: target.limits.max_subagents_per_tree,
        expires_at: expiresAt,
      });
    return { remote: true, ...granted, expiresAt, root, tenant: target.tenant };
  }

  /**
   * Tiered paths reserve tree slots only for the subordinates that pass every
   * other rule, so a refused call never takes a slot a later one could use.
   */
  async reserveTiered(target: Target, specs: JobSpec[], caller: Caller, now: number): Promise<TreeReservation> {
    const candidates = this.#admitInOrder(target.chat_id, specs, target.limits, caller, UNLIMITED_TREE).admitted;
    return this.reserve(
      target,
      candidates.filter((s) => s.kind === "subordinate"),
      now,
    );
  }

  /** Tiered admission (sync): call by call; a child's unused grants go back, the root records its slots. */
  admitTiered(
    chatId: string,
    specs: JobSpec[],
    limits: ChatLimits,
    caller: Caller,
    tree: TreeReservation,
    now: number,
  ): InOrderAdmission {
    const admission = this.#admitInOrder(chatId, specs, limits, caller, this.allowance(tree, limits, now));
    const started = admission.admitted.flatMap((s) =>
      s.kind === "subordinate" && !admission.queued.has(s.job_id!) ? [s.job_id!] : [],
    );
    this.settle(tree, started);
    return admission;
  }

  #admitInOrder(
    chatId: string,
    specs: JobSpec[],
    limits: ChatLimits,
    caller: Caller,
    tree: TreeAllowance,
  ): InOrderAdmission {
    const live = this.store.exists();
    const state = live ? subordinateState(this.store) : NEW_CHAT_STATE(chatId);
    return admitInOrder(specs, state, live ? this.store.jobs.activeCount() : 0, limits, caller, tree);
  }

  /** What a reservation allows (sync, inside admission): a child's grants, or the root's own free slots. */
  allowance(tree: TreeReservation, limits: ChatLimits, now: number): TreeAllowance {
    return treeAllowance(tree, limits.max_subagents_per_tree, () =>
      this.store.exists() ? this.store.treeSlots.holders(now) : [],
    );
  }

  /** What the subagent caps see for a whole batch. */
  capState(state: SubordinateState, limits: ChatLimits, tree: TreeReservation, now: number): CapState {
    return {
      running: state.runningJobIds,
      queued: state.queued,
      tree: this.allowance(tree, limits, now),
      limits,
      queueOnTree: state.level === 0,
    };
  }

  /**
   * After admission: the root records the slots its started subordinates hold; a child returns the grants it
   * did not use.
   */
  settle(tree: TreeReservation, started: string[]): void {
    if (tree.remote) {
      const kept = new Set(started);
      this.release({ ...tree, slots: tree.slots.filter((id) => !kept.has(id)) });
    } else if (started.length) {
      this.store.ensure();
      this.store.treeSlots.insert(started, tree.expiresAt);
    }
  }

  /** Gives slots back: locally at the root, else to the root (best effort; slots also expire). */
  release(tree: { remote: boolean; slots: string[]; root: string; tenant: string }): void {
    if (tree.slots.length === 0) return;
    if (!tree.remote) {
      if (this.store.exists()) this.store.treeSlots.release(tree.slots);
      return;
    }
    this.store.ctx.waitUntil(
      this.store
        .env()
        .CHAT.getByName(chatName(tree.tenant, tree.root))
        .releaseTreeSlots(tree.slots)
        .catch((e: Error) => console.warn("tree slot release failed; it expires at its deadline", e.message)),
    );
  }

  /** A subordinate job of this chat ended: its slot goes back. */
  jobEnded(treeSlot: string, tenant: string, chatId: string): void {
    const root = this.rootOf(chatId);
    this.release({ remote: root !== chatId, slots: [treeSlot], root, tenant });
  }
}
