/**
 * `POST /v1/chats/{chat_id}/parallel` (docs/api.md#the-parallel-route): the body is the `tool_args`
 * a model wrote for the `parallel` tool. Everything that can be checked
 * without the chat's state is checked here; the ChatDO does the rest in one
 * atomic admission and answers with the payload.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { fromRefusal } from "../../core/http/errors";
import { respond } from "../../core/http/respond";
import type { BatchRequest } from "../../core/jobs/messages";
import { parseParallel, type ParallelCommand } from "../../core/jobs/parallel-command";
import { batchContext, isUnknownTool } from "../requests/batch-context";
import { settleBatch } from "../requests/await-jobs";

export const parallelRoutes = new Hono<AppEnv>().post("/chats/:chat_id/parallel", async (c) => {
  const ctx = await batchContext(c);
  let command: ParallelCommand;
  try {
    command = parseParallel(ctx.body, ctx.config, ctx.agent, ctx.spec);
  } catch (e) {
    const every = isUnknownTool(e) ? await ctx.withEveryServer(ctx.spec) : undefined;
    if (!every) throw e;
    command = parseParallel(ctx.body, ctx.config, ctx.agent, every); // refuses again, naming the MCP tools too
  }
  const request: BatchRequest = { ...(await ctx.fields("parallel")), route: "parallel", command };
  const answer = await settleBatch(ctx.chat, await ctx.chat().startBatch(request), ctx.limits);
  if (!answer.ok) throw fromRefusal(answer);
  return respond(c, answer.payload);
});
