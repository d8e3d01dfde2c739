/**
 * Admission rules for subordinate jobs (docs/api.md#child-chats, docs/api.md#caps-permissions-and-depth):
 * which child chat
 * each call runs in, the continuation rules, the permission of an omitted
 * type and the depth limit. The caps are `./subagent-cap`. Synchronous, so the
 * ChatDO runs it inside the same step as the inserts.
 */
import { quoteName } from "../../../src/core/calls/names";
import { nanoid } from "nanoid";
import { mayStart } from "../../../src/core/agents/permission";
import { badRequest } from "../../../src/core/http/errors";
import { typeDenied, type SubordinateJobSpec } from "../../../src/core/jobs/job-spec";
import type { Caller, ChatLimits } from "../../../src/core/jobs/messages";
import type { ChildLookup, ChildRow, SubordinatePlan } from "../storage/children";

export interface SubordinateState {
  level: number;
  children: ChildLookup;
  /** Child chats with a non-terminal subordinate job of this chat. */
  busyContexts: Set<string>;
  /** Subordinate jobs of this chat holding a slot (active, not queued). */
  runningJobIds: string[];
  /** Subordinate jobs of this chat waiting for a slot. */
  queued: number;
  /** The context a `fork` passes on (empty for a chat without an agent loop). */
  forkContext: () => string;
  /** The tree's top-level chat. */
  rootChatId: string;
}

/** A chat that has no storage yet: a top-level chat with no children. */
export const NEW_CHAT_STATE = (chatId: string): SubordinateState => ({
  rootChatId: chatId,
  level: 0,
  children: { get: () => undefined, latestDefault: () => undefined },
  busyContexts: new Set(),
  runningJobIds: [],
  queued: 0,
  forkContext: () => "",
});

export const levelName = (level: number) => `A${level}`;
export const newChildId = () => `sub-${nanoid(16)}`;

const invalid = (message: string) => badRequest("invalid_subordinate_call", message);

/** Plans every subordinate call of a batch, in index order, or throws the first refusal. */
export function planSubordinates(
  specs: SubordinateJobSpec[],
  state: SubordinateState,
  limits: ChatLimits,
  caller: Caller,
): Map<number, SubordinatePlan> {
  const plans = new Map<number, SubordinatePlan>();
  const busy = new Set(state.busyContexts);
  let plannedDefault: ChildRow | undefined;
  for (const spec of specs) {
    if (state.level >= limits.max_depth) {
      throw badRequest(
        "max_depth",
        `${levelName(state.level)} cannot start subordinates: limits.max_depth is ${limits.max_depth}.`,
      );
    }
    const sub = spec.sub;
    let child: ChildRow | undefined;
    if (sub.mode === "continue") {
      child = state.children.get(sub.context_id!);
      if (!child)
        throw invalid(
          `Subordinate context '${quoteName(sub.context_id!)}' was not found under ${levelName(state.level)}.`,
        );
    } else if (sub.mode === "latest") {
      child = plannedDefault ?? state.children.latestDefault();
    }
    let profile = sub.profile ?? "default";
    if (child) {
      if (busy.has(child.context_id)) {
        throw invalid(
          `Subordinate context '${quoteName(child.context_id)}' is still running. Wait for it to finish or stop it before continuing it.`,
        );
      }
      if (sub.profile && sub.profile !== child.profile) {
        throw invalid(
          `Subordinate already uses profile '${child.profile}'. Set reset=true and omit \`context_id\` to switch to '${quoteName(sub.profile)}'.`,
        );
      }
      profile = child.profile;
    }
    // An omitted profile is checked here, once it is known: the child's own, or `default` for a new child.
    if (!sub.profile && !mayStart(caller.task_rules, profile)) {
      throw typeDenied(profile);
    }
    const context_id = child?.context_id ?? newChildId();
    const name = sub.name ?? child?.name ?? sub.label;
    busy.add(context_id);
    if (sub.mode === "latest") plannedDefault = { context_id, tool: "call_subordinate", profile, name };
    const forked = sub.fork ? state.forkContext() : "";
    plans.set(spec.index, {
      context_id,
      profile,
      name,
      level: state.level + 1,
      request: sub,
      limits,
      root_chat_id: state.rootChatId,
      ...(forked ? { forked } : {}),
    });
  }
  return plans;
}
