/**
 * One call of an assistant message as `/tool-calls` (and the MCP endpoint's `tools/call`) admits
 * it: the job(s) it becomes, or, for a call that cannot run, its own error entry under its own id
 * and name (docs/api.md#tiered-execution-and-the-tool-calls-route).
 */
import { ApiError } from "../http/errors";
import { callIdentity, InvalidToolCall, normalizeToolCall } from "../calls/normalize-call";
import { isObject } from "../util/json";
import { planToolCall } from "./call-plan";
import { invalidCall, type JobSpec, type SpecContext } from "./job-spec";
import type { ToolCallEntry } from "./tool-calls-messages";

/** The call's id as written, whatever its length: what `/tool-calls` answers it under. */
function writtenId(item: unknown): string | undefined {
  if (!isObject(item)) return undefined;
  return [item.tool_call_id, item.toolCallId, item.id].find((v): v is string => typeof v === "string" && v.length > 0);
}

export function toolCallEntry(
  index: number,
  item: unknown,
  ctx: SpecContext,
  number: (spec: JobSpec) => JobSpec,
): ToolCallEntry {
  // Read apart from the rest, so that even a malformed call is answered under its own id and name.
  // An id too long or odd to keep on the job is still echoed: the bot's tool message must name the
  // call its model made. An id is made up only for a call that came without one.
  const own = callIdentity(item);
  const tool_call_id = own.tool_call_id ?? writtenId(item) ?? `call_${index}`;
  const name = own.name ?? "";
  try {
    let call: ReturnType<typeof normalizeToolCall>;
    try {
      call = normalizeToolCall(item);
    } catch (e) {
      if (e instanceof InvalidToolCall) throw invalidCall(index, e.message);
      throw e;
    }
    const plan = planToolCall(index, call, ctx, number);
    if (plan.kind === "job") return { index, tool_call_id, name, spec: plan.spec };
    const { kind: _kind, ...parallel } = plan;
    return { index, tool_call_id, name, parallel };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { index, tool_call_id, name, error: { code: e.code, message: e.message, ...e.details } };
  }
}
