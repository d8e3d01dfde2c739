/**
 * The client's calls that start, read and decide jobs: `parallel`, `spawn`, `tool-calls`, a chat's
 * jobs and one job's record, and approval decisions. `Fanout` answers for them (its methods carry
 * the documentation); apart so each route group reads alone.
 */
import type { CallOptions } from "./requests.js";
import { startInit } from "./requests.js";
import type { Body, Routes } from "./routes.js";
import type {
  ApprovalList,
  BatchRecord,
  DecisionOptions,
  JobRecord,
  JobSnapshot,
  ParallelAnswer,
  ParallelArgs,
  RerunAnswer,
  RerunArgs,
  SpawnArgs,
  ToolCallsAnswer,
  ToolCallsBody,
} from "./types.js";

export function parallel(
  routes: Routes,
  chatId: string,
  args: ParallelArgs,
  options: CallOptions,
): Promise<ParallelAnswer> {
  const init = startInit(chatId, options);
  // The SDKs' call shapes are wider than the wire schema's plainest one: fanout reads them all.
  const body = args as Body<"/v1/chats/{chat_id}/parallel">;
  return routes.send(options.signal, () => routes.api.POST("/v1/chats/{chat_id}/parallel", { ...init, body }));
}

export function spawn(routes: Routes, chatId: string, args: SpawnArgs, options: CallOptions): Promise<ParallelAnswer> {
  const init = startInit(chatId, options);
  return routes.send(options.signal, () => routes.api.POST("/v1/chats/{chat_id}/spawn", { ...init, body: args }));
}

export function rerun(
  routes: Routes,
  chatId: string,
  batchId: string,
  args: RerunArgs,
  options: CallOptions,
): Promise<RerunAnswer> {
  const init = startInit(chatId, options);
  const params = { ...init.params, path: { chat_id: chatId, batch_id: batchId } };
  return routes.send(options.signal, () =>
    routes.api.POST("/v1/chats/{chat_id}/batches/{batch_id}/rerun", { ...init, params, body: args }),
  );
}

export function toolCalls(
  routes: Routes,
  chatId: string,
  calls: ToolCallsBody,
  options: CallOptions & { order?: "tiered" | "parallel" },
): Promise<ToolCallsAnswer> {
  const start = startInit(chatId, options);
  // `parallel`: every call of the message at once; default the tenant's `limits.tool_calls_order`.
  const init = options.order
    ? { ...start, params: { ...start.params, query: { ...start.params.query, order: options.order } } }
    : start;
  const body = calls as Body<"/v1/chats/{chat_id}/tool-calls">;
  return routes.send(options.signal, () => routes.api.POST("/v1/chats/{chat_id}/tool-calls", { ...init, body }));
}

export async function jobs(routes: Routes, chatId: string, options: { signal?: AbortSignal }): Promise<JobSnapshot[]> {
  const answer = await routes.send(options.signal, () =>
    routes.api.GET("/v1/chats/{chat_id}/jobs", { params: { path: { chat_id: chatId } }, signal: options.signal }),
  );
  return answer.jobs;
}

export function job(
  routes: Routes,
  chatId: string,
  jobId: string,
  options: { signal?: AbortSignal },
): Promise<JobRecord> {
  return routes.send(options.signal, () =>
    routes.api.GET("/v1/chats/{chat_id}/jobs/{job_id}", {
      params: { path: { chat_id: chatId, job_id: jobId } },
      signal: options.signal,
    }),
  );
}

export function batch(
  routes: Routes,
  chatId: string,
  batchId: string,
  options: { signal?: AbortSignal },
): Promise<BatchRecord> {
  return routes.send(options.signal, () =>
    routes.api.GET("/v1/chats/{chat_id}/batches/{batch_id}", {
      params: { path: { chat_id: chatId, batch_id: batchId } },
      signal: options.signal,
    }),
  );
}

export function decide(
  routes: Routes,
  chatId: string,
  jobId: string,
  decision: "approve" | "deny",
  { by, reason, signal }: DecisionOptions,
): Promise<JobSnapshot> {
  const body = { decision, ...(by !== undefined ? { by } : {}), ...(reason !== undefined ? { reason } : {}) };
  return routes.send(signal, () =>
    routes.api.POST("/v1/chats/{chat_id}/jobs/{job_id}/approval", {
      params: { path: { chat_id: chatId, job_id: jobId } },
      body,
      signal,
    }),
  );
}

export function approvals(
  routes: Routes,
  options: { status?: "pending" | "decided"; cursor?: string; limit?: number; signal?: AbortSignal },
): Promise<ApprovalList> {
  const query = {
    ...(options.status ? { status: options.status } : {}),
    ...(options.cursor ? { cursor: options.cursor } : {}),
    ...(options.limit ? { limit: String(options.limit) } : {}),
  };
  return routes.send(options.signal, () =>
    routes.api.GET("/v1/approvals", { params: { query }, signal: options.signal }),
  );
}
