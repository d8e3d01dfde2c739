/**
 * `POST /v1/chats/{chat_id}/tool-calls` (docs/api.md#tiered-execution-and-the-tool-calls-route): a bot posts the tool
 * calls of one assistant message (in any shape of docs/api.md#arguments-and-call-shapes) and gets one entry
 * per call back, in the original order, under each call's own id. Calls run
 * tiered: subordinates, `wait` and read-only tools at once, the rest one at a
 * time afterwards; a `parallel` call is a group of jobs answered like the
 * `parallel` tool. A bad call becomes an error entry; only a body that is not
 * a list of calls is a 400. `wait: false` answers at once (the results come in
 * `batch.finished`), with the bot's `context` kept for then.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { badRequest, fromRefusal } from "../../core/http/errors";
import { respond } from "../../core/http/respond";
import { specNumbering } from "../../core/jobs/call-plan";
import type { SpecContext } from "../../core/jobs/job-spec";
import { toolCallEntry } from "../../core/jobs/tool-call-entry";
import { coerceSeconds } from "../../core/calls/coerce";
import { isObject } from "../../core/util/json";
import { batchContext, planNamingEveryTool } from "../requests/batch-context";
import { settleToolCalls } from "../requests/await-jobs";
import { turnOptions } from "../../core/calls/turn-options";
import { refuseQueryKeys } from "../../core/calls/query-keys";

export const toolCallsRoutes = new Hono<AppEnv>().post("/chats/:chat_id/tool-calls", async (c) => {
  const ctx = await batchContext(c);
  const { body, config } = ctx;
  const items = Array.isArray(body) ? body : isObject(body) ? body.tool_calls : undefined;
  if (!Array.isArray(items))
    throw badRequest("invalid_tool_calls", "`tool_calls` must be an array of normal tool-call objects.");
  if (isObject(body)) refuseQueryKeys(body, "the body");
  if (items.length === 0) throw badRequest("invalid_tool_calls", "`tool_calls` must contain at least one tool call.");
  if (items.length > config.limits.max_calls) {
    throw badRequest("invalid_tool_calls", `\`tool_calls\` supports at most ${config.limits.max_calls} items.`);
  }
  const turn = turnOptions(body);
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
    return items.map((item, i) => toolCallEntry(i, item, spec, number));
  };
  const entries = await planNamingEveryTool(ctx, plan, (planned) =>
    planned.some((e) => e.error?.code === "unknown_tool"),
  );
  const fields = await ctx.fields("tool-calls", { order: c.req.query("order") });
  const reply = await ctx.chat().runToolCalls({
    ...fields,
    ...turn,
    entries,
    order,
    wait_seconds: Math.min(timeout, config.limits.max_wait_seconds),
  });
  const answer = await settleToolCalls(ctx.chat, reply, ctx.limits);
  if (!answer.ok) throw fromRefusal(answer);
  return respond(c, answer.answer);
});
