/**
 * `POST /v1/chats/{chat_id}/tool-calls` (docs/api.md#tiered-execution-and-the-tool-calls-route): a bot posts the tool
 * calls of one assistant message (in any shape of docs/api.md#arguments-and-call-shapes) and gets one entry
 * per call back, in the original order, under each call's own id. Calls run
 * tiered: subordinates, `wait` and read-only tools at once, the rest one at a
 * time afterwards; a `parallel` call is a group of jobs answered like the
 * `parallel` tool. A bad call becomes an error entry; only a body that is not
 * a list of calls is a 400.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { ApiError, badRequest, fromRefusal } from "../../core/http/errors";
import { respond } from "../../core/http/respond";
import { planToolCall, specNumbering } from "../../core/jobs/call-plan";
import { invalidCall, type JobSpec, type SpecContext } from "../../core/jobs/job-spec";
import type { ToolCallEntry } from "../../core/jobs/messages";
import { coerceSeconds } from "../../core/calls/coerce";
import { callIdentity, InvalidToolCall, normalizeToolCall } from "../../core/calls/normalize-call";
import { isObject } from "../../core/util/json";
import { batchContext } from "../requests/batch-context";
import { settleToolCalls } from "../requests/await-jobs";

/** The call's id as written, whatever its length: what `/tool-calls` answers it under. */
function writtenId(item: unknown): string | undefined {
  if (!isObject(item)) return undefined;
  return [item.tool_call_id, item.toolCallId, item.id].find((v): v is string => typeof v === "string" && v.length > 0);
}

function entryFor(index: number, item: unknown, ctx: SpecContext, number: (spec: JobSpec) => JobSpec): ToolCallEntry {
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

export const toolCallsRoutes = new Hono<AppEnv>().post("/chats/:chat_id/tool-calls", async (c) => {
  const ctx = await batchContext(c);
  const { body, config } = ctx;
  const items = Array.isArray(body) ? body : isObject(body) ? body.tool_calls : undefined;
  if (!Array.isArray(items))
    throw badRequest("invalid_tool_calls", "`tool_calls` must be an array of normal tool-call objects.");
  if (isObject(body) && "budget" in body) {
    throw badRequest(
      "option_not_allowed_in_tool_args",
      "`budget` is set by the bot, not the model: pass it as the query parameter ?budget=, not in the body.",
    );
  }
  if (items.length === 0) throw badRequest("invalid_tool_calls", "`tool_calls` must contain at least one tool call.");
  if (items.length > config.limits.max_calls) {
    throw badRequest("invalid_tool_calls", `\`tool_calls\` supports at most ${config.limits.max_calls} items.`);
  }
  const timeout =
    coerceSeconds("timeout", isObject(body) ? body.timeout : undefined) ?? config.limits.default_timeout_seconds;
  const order = c.req.query("order") ?? config.limits.tool_calls_order;
  if (order !== "tiered" && order !== "parallel")
    throw badRequest(
      "invalid_order",
      "`order` is `tiered` (side-effecting calls one after another, after the rest) or `parallel` (every call at once).",
    );
  const plan = (spec: SpecContext) => {
    const number = specNumbering();
    return items.map((item, i) => entryFor(i, item, spec, number));
  };
  let entries = plan(ctx.spec);
  if (entries.some((e) => e.error?.code === "unknown_tool")) {
    const every = await ctx.withEveryServer(ctx.spec);
    if (every) entries = plan(every); // an unknown-tool entry names the MCP tools too
  }
  const fields = await ctx.fields("tool-calls", { order: c.req.query("order") });
  const reply = await ctx
    .chat()
    .runToolCalls({ ...fields, entries, order, wait_seconds: Math.min(timeout, config.limits.max_wait_seconds) });
  const answer = await settleToolCalls(ctx.chat, reply, ctx.limits);
  if (!answer.ok) throw fromRefusal(answer);
  return respond(c, answer.answer);
});
