/**
 * Names for the wire types the client uses, all taken from `./openapi.ts`,
 * which openapi-typescript generates from the worker's /openapi.json: nothing
 * here restates a shape. Only the tool calls a bot sends are widened, to the
 * SDK shapes of `./call-shapes.ts`.
 */
import type { ToolCallList } from "./call-shapes.js";
import type { components, paths } from "./openapi.js";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody: infer R }
  ? Json<R>
  : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 200: infer R } }
  ? Json<R>
  : never;

type ParallelBody = Body<"/v1/chats/{chat_id}/parallel", "post">;
/** The `tool_args` of a `parallel` call, as a model writes them; `tool_calls` also as an SDK hands them over. */
export type ParallelArgs = Omit<ParallelBody, "tool_calls"> & {
  tool_calls?: ParallelBody["tool_calls"] | ToolCallList;
};
/** What `parallel` answers: results, or the started payload with `wait: false`. */
export type ParallelAnswer = Ok<"/v1/chats/{chat_id}/parallel", "post">;
export type ResultsPayload = Exclude<ParallelAnswer, { status: "started" }>;
export type StartedPayload = Extract<ParallelAnswer, { status: "started" }>;
export type JobSnapshot = ResultsPayload["jobs"][number];
export type JobRecord = Ok<"/v1/chats/{chat_id}/jobs/{job_id}", "get">;
/**
 * A batch as one record until its jobs are purged: its state, its jobs in call order, its usage, and its
 * metadata, context, what it reran and its trace when it has them.
 */
export type BatchRecord = Ok<"/v1/chats/{chat_id}/batches/{batch_id}", "get">;

/** `spawn_task` arguments plus `agent` (the subagent type). */
export type SpawnArgs = Body<"/v1/chats/{chat_id}/spawn", "post">;
/** What to run again of a finished batch (docs/api.md#rerun); every field is optional. */
export type RerunArgs = NonNullable<Body<"/v1/chats/{chat_id}/batches/{batch_id}/rerun", "post">>;
/** The whole batch after a rerun: carried-over jobs and rerun ones in the original order, with the new `batch_id`. */
export type RerunAnswer = Ok<"/v1/chats/{chat_id}/batches/{batch_id}/rerun", "post">;
/**
 * One assistant message's tool calls, in the shapes its SDK gives them (`{tool_calls, timeout?}`, or the bare
 * list). `wait: false` answers at once (status `started`) and the results come in `batch.finished`, with
 * `context` (any JSON up to 64 KiB the bot needs to continue its turn) as `data.context`.
 */
export type ToolCallsBody =
  | { tool_calls: ToolCallList; timeout?: number | string; wait?: boolean; context?: unknown }
  | Exclude<ToolCallList, null | undefined>;
export type ToolCallsAnswer = Ok<"/v1/chats/{chat_id}/tool-calls", "post">;
export type ToolsAnswer = Ok<"/v1/tools", "get">;
/**
 * One function definition of `GET /v1/tools`, in OpenAI's form: `{type: "function", function: {name,
 * description, parameters}}`.
 */
export type ToolDefinition = ToolsAnswer["tools"][number];
/** `GET /v1/flow`: each flow rule's running and queued calls, its rate's headroom, its busiest keys. */
export type FlowAnswer = Ok<"/v1/flow", "get">;
export type TelemetryAnswer = Ok<"/v1/telemetry", "get">;
/** `GET /v1/approvals`: a page of the tenant's calls waiting for a person's decision, or decided. */
export type ApprovalList = Ok<"/v1/approvals", "get">;
export type ApprovalEntry = ApprovalList["approvals"][number];
/** Who decided and why, as the bot knows them; the reason ends a denied call's error. */
export type DecisionOptions = { by?: string; reason?: string; signal?: AbortSignal };
export type ChatInfo = Ok<"/v1/chats/{chat_id}", "get">;
/** `GET /v1/chats/{chat}/usage`: the chat's own usage, its subtree's, and the subtree's by day (30 days). */
export type ChatUsage = Ok<"/v1/chats/{chat_id}/usage", "get">;
/** `GET /v1/chats/{chat}/transcript`: a subagent's conversation, each model turn with its usage. */
export type Transcript = Ok<"/v1/chats/{chat_id}/transcript", "get">;
/** What a job, a batch or a chat took: model requests, tokens, tool calls, subagents, and dollars when priced. */
export type Usage = ChatUsage["chat"];
/** A page of the tenant's top-level chats. */
export type ChatList = Ok<"/v1/chats", "get">;

/** One kept event's webhook delivery, as `deliveries()` lists it and `redeliver()` answers it. */
export type Delivery = Ok<"/v1/chats/{chat_id}/events", "get">["events"][number];
export type DeliveryStatus = Delivery["status"];
/** What `testWebhook()` found: the receiver's status (null: no answer), what is wrong, how long it took. */
export type WebhookTestAnswer = Ok<"/v1/webhook/test", "post">;

/** The tenant configuration as `GET /v1/config` shows it: every secret `"***"`. */
export type TenantConfig = Ok<"/v1/config", "get">;
/** A whole configuration for `putConfig`: every key left out takes its default. */
export type ConfigDocument = Body<"/v1/config", "put">;
/** A JSON Merge Patch for `patchConfig`: named keys change, `null` removes one, arrays replace whole. */
export type ConfigPatch = components["schemas"]["ConfigPatch"];
/** What a config write answers: the new document, plus the signing secrets it generated (by name, shown once). */
export type ConfigAnswer = Ok<"/v1/config", "patch">;

/** One event, as webhooks deliver it and the chat stream sends it. */
export type FanoutEvent = components["schemas"]["Event"];
export type EventType = FanoutEvent["type"];
/** What `testWebhook()` sends: signed like every event, with only the tenant in `data`. */
export type WebhookTestEvent = components["schemas"]["WebhookTestEvent"];
/** What a webhook receiver gets: an event, or a test event. */
export type WebhookEvent = FanoutEvent | WebhookTestEvent;
/** A tenant-stream message: the event plus its `cursor`. */
export type TenantStreamEvent = components["schemas"]["TenantStreamEvent"];
/** First on a resumed stream when messages it missed are gone: reload state from the REST routes. */
export type CursorExpired = components["schemas"]["CursorExpired"];
/** Every non-2xx answer: `{"status":"error","error":{"code","message",…details}}`. */
export type ErrorBody = Json<paths["/v1/config"]["get"]["responses"]["default"]>;
