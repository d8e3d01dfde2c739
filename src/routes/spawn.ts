/**
 * `POST /v1/chats/{chat_id}/spawn` (docs/api.md#the-spawn-route): one `spawn_task` on its own.
 * The body is the spawn_task arguments; `wait` defaults to false (the started
 * payload), `wait: true` waits like an await (≤ max_wait_seconds) and answers
 * the results payload of that job.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { badRequest, fromRefusal } from "../http/errors";
import { respond } from "../http/respond";
import { jobSpec } from "../jobs/job-spec";
import { coerceBool } from "../calls/coerce";
import { cleanCopy, isObject, type JsonObject } from "../util/json";
import { caller, chatStub, configCheckOf, jobRequest } from "../requests/context";
import { idempotency } from "../requests/idempotency";
import { settleBatch } from "../requests/await-jobs";
import { chatLimits } from "../config/chat-limits";

export const spawnRoutes = new Hono<AppEnv>().post("/chats/:chat_id/spawn", async (c) => {
  const { chatId, config, body, agent, delivery, spec: ctx, budget } = await jobRequest(c);
  if (!isObject(body)) throw badRequest("invalid_json", "Request body must be a JSON object.");
  const args = cleanCopy(body) as JsonObject;
  const spec = jobSpec(0, { tool_name: "spawn_task", tool_args: args }, ctx);
  const wait = coerceBool(args.wait, false);
  const chat = () => chatStub(c, chatId);
  const limits = chatLimits(config);
  const started = await chat().startBatch({
    tenant: c.get("tenant"),
    chat_id: chatId,
    route: "spawn",
    command: { action: undefined, wait, wait_seconds: config.limits.max_wait_seconds, job_ids: [], jobs: [spec] },
    limits,
    caller: caller(config, agent),
    ...(config.flow.length ? { flow: config.flow } : {}),
    ...(config.approvals.length ? { approvals: config.approvals } : {}),
    ...(budget ? { budget } : {}),
    delivery,
    idempotency: await idempotency(c.req.header("idempotency-key"), { route: "spawn", body, agent, ...delivery, budget: c.req.query("budget") }),
    config_check: configCheckOf(c),
  });
  const answer = await settleBatch(chat, started, limits);
  if (!answer.ok) throw fromRefusal(answer);
  return respond(c, answer.payload);
});
