/**
 * `POST /v1/chats/{chat_id}/parallel` (docs/api.md#the-parallel-route): the body is the `tool_args`
 * a model wrote for the `parallel` tool. Everything that can be checked
 * without the chat's state is checked here; the ChatDO does the rest in one
 * atomic admission and answers with the payload.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { fromRefusal } from "../http/errors";
import { respond } from "../http/respond";
import type { BatchRequest } from "../jobs/messages";
import { chatLimits } from "../config/chat-limits";
import { parseParallel, type ParallelCommand } from "../jobs/parallel-command";
import { caller, chatStub, configCheckOf, isUnknownTool, jobRequest, withEveryServer } from "../requests/context";
import { idempotency } from "../requests/idempotency";
import { settleBatch } from "../requests/await-jobs";

export const parallelRoutes = new Hono<AppEnv>().post("/chats/:chat_id/parallel", async (c) => {
  const { chatId, config, body, agent, delivery, spec, budget } = await jobRequest(c);
  let command: ParallelCommand;
  try {
    command = parseParallel(body, config, agent, spec);
  } catch (e) {
    const every = isUnknownTool(e) ? await withEveryServer(c, spec) : undefined;
    if (!every) throw e;
    command = parseParallel(body, config, agent, every); // refuses again, naming the MCP tools too
  }
  const request: BatchRequest = {
    tenant: c.get("tenant"),
    chat_id: chatId,
    route: "parallel",
    command,
    limits: chatLimits(config),
    caller: caller(config, agent),
    ...(config.flow.length ? { flow: config.flow } : {}),
    ...(config.approvals.length ? { approvals: config.approvals } : {}),
    ...(budget ? { budget } : {}),
    delivery,
    idempotency: await idempotency(c.req.header("idempotency-key"), { route: "parallel", body, agent, ...delivery, budget: c.req.query("budget") }),
    config_check: configCheckOf(c),
  };
  const chat = () => chatStub(c, chatId);
  const answer = await settleBatch(chat, await chat().startBatch(request), request.limits);
  if (!answer.ok) throw fromRefusal(answer);
  return respond(c, answer.payload);
});
