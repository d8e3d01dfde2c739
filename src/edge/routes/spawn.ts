/**
 * `POST /v1/chats/{chat_id}/spawn` (docs/api.md#the-spawn-route): one `spawn_task` on its own.
 * The body is the spawn_task arguments; `wait` defaults to false (the started
 * payload), `wait: true` waits like an await (≤ max_wait_seconds) and answers
 * the results payload of that job.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { badRequest, fromRefusal } from "../../core/http/errors";
import { respond } from "../../core/http/respond";
import { jobSpec } from "../../core/jobs/job-spec";
import { coerceBool } from "../../core/calls/coerce";
import { cleanCopy, isObject, type JsonObject } from "../../core/util/json";
import { batchContext } from "../requests/batch-context";
import { settleBatch } from "../requests/await-jobs";

export const spawnRoutes = new Hono<AppEnv>().post("/chats/:chat_id/spawn", async (c) => {
  const ctx = await batchContext(c);
  if (!isObject(ctx.body)) throw badRequest("invalid_json", "Request body must be a JSON object.");
  const args = cleanCopy(ctx.body) as JsonObject;
  const spec = jobSpec(0, { tool_name: "spawn_task", tool_args: args }, ctx.spec);
  const wait = coerceBool(args.wait, false);
  const command = {
    action: undefined,
    wait,
    wait_seconds: ctx.config.limits.max_wait_seconds,
    job_ids: [],
    jobs: [spec],
  };
  const started = await ctx.chat().startBatch({ ...(await ctx.fields("spawn")), route: "spawn", command });
  const answer = await settleBatch(ctx.chat, started, ctx.limits);
  if (!answer.ok) throw fromRefusal(answer);
  return respond(c, answer.payload);
});
