/**
 * A child chat started with a `spawn_task` `tools` subset keeps to it for every job it admits
 * (docs/api.md#child-chats: a descendant's tools are always within its ancestors'), including jobs a key
 * holder sends to the child chat directly through `/parallel`, `/spawn` or `/tool-calls`, whose
 * checks know the calling agent's profile but not the chat's subset. The agent loop applies the
 * same bound when it plans its calls (`SpecContext.toolBound`).
 */
import { quoteName } from "../calls/names";
import { badRequest } from "../http/errors";
import type { JobSpec } from "./job-spec";

/** `specs` within `bound` (subordinates inherit it), or the refusal of the first that is not. */
export function withinToolBound(specs: JobSpec[], bound: string[] | null): JobSpec[] {
  if (!bound) return specs;
  return specs.map((spec) => {
    if (spec.kind === "tool") {
      if (spec.tool_name === "wait" || bound.includes(spec.tool_name)) return spec;
      throw badRequest(
        "unknown_tool",
        `tool_calls[${spec.index}] uses tool '${quoteName(spec.tool_name)}', which this chat may not use: it was started with the tools ${bound.join(", ") || "(none)"}.`,
      );
    }
    const wider = (spec.sub.tools ?? []).filter((t) => !bound.includes(t));
    if (wider.length) {
      throw badRequest(
        "invalid_subordinate_call",
        `\`tools\` must be a subset of this chat's own tools (${bound.join(", ")}); not allowed: ${wider.map(quoteName).join(", ")}.`,
      );
    }
    return { ...spec, sub: { ...spec.sub, tools: spec.sub.tools ?? bound } };
  });
}

/** The tools a continued child may use: within what it had and what the continuation allows. */
export function narrowestTools(had: string[] | null, allowed: string[] | undefined): string[] | null {
  if (!had) return allowed ?? null;
  return allowed ? had.filter((t) => allowed.includes(t)) : had;
}
