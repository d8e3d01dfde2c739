/**
 * `POST /v1/chats/{chat_id}/batches/{batch_id}/rerun` (docs/api.md#rerun): a new batch in the same
 * chat with the failed part of a finished one. The chat reads the batch whole; which jobs run again
 * is decided here (`planRerun`), and each is checked as a new call against the current
 * configuration, then admitted under every gate like any batch. The answer is the whole batch,
 * carried-over jobs and rerun ones, in the original order.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { MAX_BODY_BYTES } from "../../core/config/bounds";
import { issueLines } from "../../core/config-check/validate";
import { badRequest, fromRefusal } from "../../core/http/errors";
import { readJsonBody } from "../../core/http/json-body";
import { respond } from "../../core/http/respond";
import type { JobRecord } from "../../core/jobs/job";
import type { BatchRequest } from "../../core/jobs/messages";
import { jobSpec } from "../../core/jobs/job-spec";
import { rerunBody } from "../../core/api/rerun";
import { planRerun } from "../../core/jobs/rerun";
import { batchContext } from "../requests/batch-context";
import { settleBatch } from "../requests/await-jobs";
import { callerAgent, tenantConfig } from "../requests/context";
import type { JsonObject } from "../../core/util/json";

export const rerunRoutes = new Hono<AppEnv>().post("/chats/:chat_id/batches/:batch_id/rerun", async (c) => {
  const config = await tenantConfig(c);
  const raw = await readJsonBody(c.req.raw, Math.min(config.limits.max_body_bytes, MAX_BODY_BYTES), {});
  const parsed = rerunBody.safeParse(raw);
  if (!parsed.success) throw badRequest("invalid_rerun", issueLines(parsed.error).join("; "));
  const body = parsed.data;
  const ctx = await batchContext(c, { body, agent: callerAgent(c, config) });
  const batchId = c.req.param("batch_id");
  const sources = await ctx.chat().rerunSources(ctx.chatId, batchId);
  if (!Array.isArray(sources)) throw fromRefusal(sources);
  const plan = planRerun(batchId, sources, body);
  // The calls name no server in the body: an MCP tool's server is listed when one is rerun.
  const mcp = plan.rerun.some((s) => s.tool_name.includes("__"));
  const spec = (mcp && (await ctx.withEveryServer(ctx.spec))) || ctx.spec;
  const jobs = plan.rerun.map((s) => ({
    ...jobSpec(
      s.idx,
      {
        tool_name: s.tool_name,
        tool_args: s.args as JsonObject,
        ...(s.tool_call_id ? { tool_call_id: s.tool_call_id } : {}),
      },
      spec,
    ),
    timeout_seconds: Math.min(s.timeout_seconds, config.limits.max_job_timeout_seconds),
  }));
  const fields = await ctx.fields("rerun", { batch_id: batchId });
  // Without metadata of its own, a rerun keeps the batch's: its flow keys and its events' echo stay the same.
  const metadata = fields.delivery.metadata ?? sources[0]?.metadata ?? null;
  const request: BatchRequest = {
    ...fields,
    delivery: { ...fields.delivery, metadata },
    route: "rerun",
    command: { action: undefined, wait: body.wait, wait_seconds: config.limits.max_wait_seconds, job_ids: [], jobs },
    rerun: { of: batchId, jobs: plan.rerun.map((s) => s.job_id), carried: plan.carried },
  };
  const answer = await settleBatch(ctx.chat, await ctx.chat().startBatch(request), ctx.limits);
  if (!answer.ok) throw fromRefusal(answer);
  // The new batch's id, read from one of its own jobs: not one carried over, which may be an earlier rerun's
  // (a replayed request answers the first rerun's).
  const carried = new Set(plan.carried);
  const rerunJob = answer.payload.jobs.find((j) => j.rerun_of !== undefined && !carried.has(j.job_id));
  // The RPC's record type is too deep for the stub's inference, as in the job route.
  const read = rerunJob ? ((await ctx.chat().getJob(rerunJob.job_id)) as { record: JobRecord | null } | null) : null;
  const newBatch = read?.record?.batch_id ?? null;
  return respond(c, { batch_id: newBatch, rerun_of: batchId, ...answer.payload });
});
